/// Printing and encoding a `DocumentDiff`.
extension DocumentDiff {
    /// One line of a readable diff; `kind` lets a terminal color it.
    public struct Line: Sendable, Equatable, CustomStringConvertible {
        /// How the line reads: something added, removed, changed, or a detail of a change.
        public enum Kind: Sendable, Equatable {
            /// `+ flag x`.
            case added
            /// `- flag x`.
            case removed
            /// `~ flag x`.
            case changed
            /// An indented detail under a changed flag or cohort.
            case detail
        }

        /// How the line reads.
        public let kind: Kind
        /// The text, with its marker and indentation.
        public let text: String

        /// The text.
        public var description: String { text }
    }

    /// The diff as readable lines, flags first then cohorts, each in key order; empty when equal.
    public var lines: [Line] {
        var lines: [Line] = []
        let flagKeys = (Array(addedFlags.keys) + Array(removedFlags.keys) + changedFlags.map(\.key)).sorted(by: JSONValue.utf8Order)
        for key in flagKeys {
            if let flag = addedFlags[key] {
                lines.append(Line(kind: .added, text: "+ flag \(key): \(flag.type.rawValue), default \(flag.defaultValue)"))
                for (index, rule) in flag.rules.enumerated() {
                    lines.append(Line(kind: .detail, text: "    rule \(index): \(Self.describe(rule))"))
                }
                for (required, value) in flag.requires.sorted(by: { JSONValue.utf8Order($0.key, $1.key) }) {
                    lines.append(Line(kind: .detail, text: "    requires \(required) = \(value)"))
                }
            } else if let flag = removedFlags[key] {
                lines.append(Line(kind: .removed, text: "- flag \(key): \(flag.type.rawValue), default \(flag.defaultValue)"))
            } else if let change = changedFlags.first(where: { $0.key == key }) {
                lines.append(Line(kind: .changed, text: "~ flag \(key)"))
                lines.append(contentsOf: change.changes.map { Line(kind: .detail, text: "    " + Self.describe($0)) })
            }
        }
        let cohortNames = (Array(addedCohorts.keys) + Array(removedCohorts.keys) + changedCohorts.map(\.name)).sorted(by: JSONValue.utf8Order)
        for name in cohortNames {
            if let cohort = addedCohorts[name] {
                lines.append(Line(kind: .added, text: "+ cohort \(name): \(cohort.jsonValue)"))
            } else if let cohort = removedCohorts[name] {
                lines.append(Line(kind: .removed, text: "- cohort \(name): \(cohort.jsonValue)"))
            } else if let change = changedCohorts.first(where: { $0.name == name }) {
                lines.append(Line(kind: .changed, text: "~ cohort \(name)"))
                lines.append(Line(kind: .detail, text: "    was: \(change.old.jsonValue)"))
                lines.append(Line(kind: .detail, text: "    now: \(change.new.jsonValue)"))
            }
        }
        return lines
    }

    /// The readable diff as one text, a line each.
    public var text: String { lines.map(\.text).joined(separator: "\n") }

    /// `cohort beta, rollout 12.5%: true` / `everyone: true`.
    public static func describe(_ rule: Rule) -> String {
        var who = rule.cohort.map { "cohort \($0)" } ?? "everyone"
        if let rollout = rule.rollout { who += ", rollout \(rollout)" }
        return "\(who): \(rule.value)"
    }

    static func describe(_ change: FlagChange.Change) -> String {
        func text(_ value: String?) -> String { value.map { JSONValue.string($0).description } ?? "(none)" }
        switch change {
        case .type(let from, let to): return "type: \(from.rawValue) -> \(to.rawValue)"
        case .description(let from, let to): return "description: \(text(from)) -> \(text(to))"
        case .defaultValue(let from, let to): return "default: \(from) -> \(to)"
        case .salt(let from, let to): return "salt: \(text(from)) -> \(text(to)) (every rollout of this flag is reshuffled)"
        case .prerequisite(let flag, nil, let to?): return "requires \(flag) = \(to) (new)"
        case .prerequisite(let flag, let from?, nil): return "no longer requires \(flag) = \(from)"
        case .prerequisite(let flag, let from, let to):
            return "requires \(flag): \(from ?? .null) -> \(to ?? .null)"
        case .ruleAdded(let index, let rule): return "+ rule \(index): \(describe(rule))"
        case .ruleRemoved(let index, let rule): return "- rule \(index): \(describe(rule))"
        case .ruleChanged(let oldIndex, let newIndex, let from, let to):
            var parts: [String] = []
            if from.cohort != to.cohort { parts.append("cohort \(from.cohort ?? "(everyone)") -> \(to.cohort ?? "(everyone)")") }
            if from.rollout != to.rollout {
                parts.append("rollout \(from.rollout?.description ?? "(all)") -> \(to.rollout?.description ?? "(all)")")
            }
            if from.value != to.value { parts.append("value \(from.value) -> \(to.value)") }
            let position = oldIndex == newIndex ? "rule \(newIndex)" : "rule \(oldIndex) (now \(newIndex))"
            return "~ \(position) [\(to.cohort.map { "cohort \($0)" } ?? "everyone")]: " + parts.joined(separator: ", ")
        }
    }

    /// The diff as JSON for machines: `{"flags": {"added", "removed", "changed"}, "cohorts": {...}}`.
    public var jsonValue: JSONValue {
        let changed: [JSONValue] = changedFlags.map { change in
            ["key": .string(change.key), "changes": .array(change.changes.map(Self.json))]
        }
        let changedCohortValues: [JSONValue] = changedCohorts.map { change in
            ["name": .string(change.name), "from": change.old.jsonValue, "to": change.new.jsonValue]
        }
        return [
            "identical": .bool(isEmpty),
            "flags": [
                "added": .object(addedFlags.mapValues(\.jsonValue)),
                "removed": .object(removedFlags.mapValues(\.jsonValue)),
                "changed": .array(changed),
            ],
            "cohorts": [
                "added": .object(addedCohorts.mapValues(\.jsonValue)),
                "removed": .object(removedCohorts.mapValues(\.jsonValue)),
                "changed": .array(changedCohortValues),
            ],
        ]
    }

    private static func json(_ change: FlagChange.Change) -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        switch change {
        case .type(let from, let to): return ["kind": "type", "from": .string(from.rawValue), "to": .string(to.rawValue)]
        case .description(let from, let to): return ["kind": "description", "from": optional(from), "to": optional(to)]
        case .defaultValue(let from, let to): return ["kind": "default", "from": from, "to": to]
        case .salt(let from, let to): return ["kind": "salt", "from": optional(from), "to": optional(to)]
        case .prerequisite(let flag, let from, let to):
            return ["kind": "requires", "flag": .string(flag), "from": from ?? .null, "to": to ?? .null]
        case .ruleAdded(let index, let rule): return ["kind": "ruleAdded", "index": .integer(Int64(index)), "rule": rule.jsonValue]
        case .ruleRemoved(let index, let rule): return ["kind": "ruleRemoved", "index": .integer(Int64(index)), "rule": rule.jsonValue]
        case .ruleChanged(let oldIndex, let newIndex, let from, let to):
            return ["kind": "ruleChanged", "oldIndex": .integer(Int64(oldIndex)), "newIndex": .integer(Int64(newIndex)),
                    "from": from.jsonValue, "to": to.jsonValue]
        }
    }
}
