import FlagKit

/// How flagctl shows guards (the API's guard JSON, docs/guards.md): the same words in `guard list`, `guard show`, `guard
/// add` and the `--guard` of `publish`, `set` and `schedule`, and the next command where one is needed.
enum GuardRendering {
    /// One line for a rule: `refunds per hour against the previous week (+50 %, at least 5, 72 h, alpha 0.01): rollback`.
    static func rule(_ rule: JSONValue?) -> String {
        guard let rule else { return "-" }
        let metric = rule["metric"]?.stringValue ?? "?"
        let measure = switch rule["measure"]?.stringValue {
        case "perStarted": "per started subscription"
        case "perActive": "per active subscription-hour"
        default: "per hour"
        }
        let threshold = rule["threshold"]?.doubleValue.map(number) ?? "?"
        var details: [String] = []
        let baseline: String
        switch rule["baseline"]?.stringValue {
        case "floor": baseline = "below a floor of \(threshold)"
        case "ceiling": baseline = "above a ceiling of \(threshold)"
        default:
            baseline = "against the previous week"
            if let change = rule["minimumRelativeChange"]?.doubleValue { details.append("\(risesOrFalls(rule))\(number(change * 100)) %") }
        }
        if let count = rule["minimumCount"]?.integerValue { details.append("at least \(count)") }
        if let hours = rule["windowHours"]?.integerValue { details.append("\(hours) h") }
        if let alpha = rule["alpha"]?.doubleValue { details.append("alpha \(number(alpha))") }
        let action = rule["action"]?.stringValue ?? "?"
        return "\(metric) \(measure) \(baseline)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))") + ": \(action)"
    }

    /// `+` for a metric that trips on a rise, `-` (its fall, `1 / (1 + r)`) otherwise: how `minimumRelativeChange` reads.
    private static func risesOrFalls(_ rule: JSONValue) -> String {
        ["started", "introConversions"].contains(rule["metric"]?.stringValue ?? "") ? "-" : "+"
    }

    /// A number without a trailing `.0` (`72`, `0.01`, `2.5`).
    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// What the guard rides on: `change 12 -> v43`, `version 43`, `change 12 (waiting)`.
    static func target(_ guardValue: JSONValue) -> String {
        let version = guardValue["version"]?.integerValue
        if let change = guardValue["change"]?.integerValue {
            return "change \(change)" + (version.map { " -> v\($0)" } ?? "")
        }
        return version.map { "version \($0)" } ?? "-"
    }

    /// `guard list`'s columns.
    static let header = ["ID", "STATUS", "ON", "RULE", "WINDOW ENDS", "LAST DECISION"]

    /// One guard as a row of `guard list`.
    static func row(_ guardValue: JSONValue) -> [String] {
        [guardValue["id"]?.integerValue.map(String.init) ?? "?", guardValue["status"]?.stringValue ?? "?", target(guardValue),
         rule(guardValue["rule"]), guardValue["windowEndsAt"]?.stringValue ?? "-",
         guardValue["lastDecision"]?["message"]?.stringValue ?? "-"]
    }

    /// `added guard 7 to production change 12 (waiting): refunds per hour ...`.
    static func added(_ guardValue: JSONValue, environment: String) -> String {
        let id = guardValue["id"]?.integerValue.map(String.init) ?? "?"
        return "added guard \(id) to \(environment) \(target(guardValue)) (\(guardValue["status"]?.stringValue ?? "?")): \(rule(guardValue["rule"]))"
    }

    /// `guard show`: the guard's members as lines, then its decisions, newest first.
    static func details(_ guardValue: JSONValue) -> String {
        func text(_ member: String) -> String {
            switch guardValue[member] {
            case nil, .null?: "-"
            case .string(let value)?: value
            case let other?: other.canonicalString
            }
        }
        var lines = ["guard \(text("id")) in \(text("environment")): \(text("status"))",
                     "  on:            \(target(guardValue))" + (guardValue["previousVersion"]?.integerValue.map { " (before it: v\($0))" } ?? ""),
                     "  rule:          \(rule(guardValue["rule"]))",
                     "  reads:         \(guardValue["product"]?.stringValue ?? "every product"), \(text("appStoreEnvironment"))",
                     "  created:       \(text("createdAt")) by \(text("createdBy"))",
                     "  watches:       \(text("publishedAt")) to \(text("windowEndsAt"))"]
        if let decision = guardValue["lastDecision"], decision != .null {
            lines.append("  last decision: \(decision["message"]?.stringValue ?? decision["verdict"]?.stringValue ?? "-") (\(decision["at"]?.stringValue ?? "-"))")
        }
        if guardValue["trippedAt"]?.stringValue != nil { lines.append("  tripped:       \(text("trippedAt"))") }
        if let action = guardValue["action"], action != .null { lines.append("  action:        \(self.action(action))") }
        if guardValue["overriddenBy"]?.stringValue != nil {
            lines.append("  overridden:    \(text("overriddenAt")) by \(text("overriddenBy")): \(text("overrideMessage"))")
        }
        if guardValue["status"]?.stringValue == "tripped", let id = guardValue["id"]?.integerValue {
            // A rollback of a protected flag is a change request the guard proposed: any writer may approve it.
            if let action = guardValue["action"], action["kind"] == "rollback", action["outcome"] == "failed",
               let request = action["changes"]?.arrayValue?.first?.integerValue {
                lines.append("approve the rollback (any writer): flagctl approve \(request) -m MESSAGE")
            }
            lines.append("override (another writer, not its author): flagctl guard override \(id) -m MESSAGE")
        }
        let decisions = guardValue["decisions"]?.arrayValue ?? []
        var out = lines.joined(separator: "\n") + "\n"
        if !decisions.isEmpty {
            out += "\n" + TextTable.render(header: ["AT", "DECISION", "OUTCOME", "WHAT"], rows: decisions.map(decisionRow))
        }
        return out
    }

    /// One audited decision (`{"action": "guard.held", "at", "outcome", "detail"}`): when, which (`held`, `tripped`,
    /// `acted`, `closed`), its audit outcome, and the decision's message (for `acted`, what was done).
    static func decisionRow(_ decision: JSONValue) -> [String] {
        let action = decision["action"]?.stringValue ?? "-"
        let detail = decision["detail"]
        let what = detail?["message"]?.stringValue ?? (detail.flatMap { $0["kind"] == nil ? nil : self.action($0) } ?? "-")
        return [decision["at"]?.stringValue ?? "-", action.hasPrefix("guard.") ? String(action.dropFirst("guard.".count)) : action,
                decision["outcome"]?.stringValue ?? "-", what]
    }

    /// `rollback done: version 44`, `pauseSchedules done: changes 15, 16`, `rollback failed: change request 17 (...)` (a
    /// rollback of a protected flag waits for an approval), `rollback failed (head_moved: ...)`.
    static func action(_ action: JSONValue) -> String {
        let kind = action["kind"]?.stringValue ?? "?"
        var text = "\(kind) \(action["outcome"]?.stringValue ?? "?")"
        if let version = action["version"]?.integerValue { text += ": version \(version)" }
        if let changes = action["changes"]?.arrayValue, !changes.isEmpty {
            let ids = changes.compactMap { $0.integerValue.map(String.init) }.joined(separator: ", ")
            text += kind == "rollback" ? ": change request \(ids)" : ": changes \(ids)"
        }
        if let reason = action["reason"]?.stringValue { text += " (\(reason))" }
        return text
    }
}
