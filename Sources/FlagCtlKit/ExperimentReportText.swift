import FlagKit
import Foundation

/// An experiment report (the server's JSON, docs/api.md "Experiments") as `flagctl experiment report` prints it: a
/// heading, a table of arms, one line per comparison, the sample-ratio check and the line of what is not known.
enum ExperimentReportText {
    static func render(_ report: [String: JSONValue]) -> String {
        let arms = (report["arms"]?.arrayValue ?? [])
        func name(_ index: Int64?) -> String {
            guard let index, index >= 0, Int(index) < arms.count else { return "?" }
            return arms[Int(index)]["name"]?.stringValue ?? "?"
        }
        var out = heading(report) + "\n"
        let rows: [[String]] = arms.map { arm in
            let currency = arm["currency"]?.stringValue ?? ""
            let listPrice = arm["listPrice"]?.doubleValue.map { "\(amount($0)) \(currency)" } ?? "-"
            let revenue = arm["revenueAtListPrice"]?.doubleValue.map { "\(amount($0)) \(currency)" } ?? "-"
            return [arm["name"]?.stringValue ?? "?", percent(arm["share"]?.doubleValue), listPrice, count(arm["started"]),
                    count(arm["introStarts"]), count(arm["introConversions"]), count(arm["refunds"]), revenue]
        }
        out += TextTable.render(header: ["ARM", "SHARE", "LIST PRICE", "STARTED", "INTRO STARTS", "INTRO CONVERSIONS", "REFUNDS",
                                         "REVENUE AT LIST PRICE"], rows: rows)
        out += "\nstarted per share (always-valid \(level(report["alpha"]?.doubleValue)) interval; read as often as you like):\n"
        for comparison in report["comparisons"]?.arrayValue ?? [] {
            let first = name(comparison["first"]?.integerValue)
            let second = name(comparison["second"]?.integerValue)
            let ratio = comparison["ratio"]?.doubleValue.map(amount) ?? "∞"
            let lower = comparison["lower"]?.doubleValue.map(amount) ?? "∞"
            let upper = comparison["upper"]?.doubleValue.map(amount) ?? "∞"
            let pValue = comparison["pValue"]?.doubleValue.map(probability) ?? "?"
            let verdict = comparison["verdict"]?.stringValue ?? "?"
            out += "  \(first) vs \(second): \(ratio) [\(lower), \(upper)], p = \(pValue): \(verdict)\n"
        }
        let checks = report["sampleRatioChecks"]?.arrayValue ?? []
        if checks.isEmpty {
            out += "sample-ratio check: none (no two arms show the same terms; a twin product at one price makes one possible)\n"
        }
        for check in checks {
            let members = (check["arms"]?.arrayValue ?? []).map { name($0.integerValue) }.joined(separator: ", ")
            let pValue = check["pValue"]?.doubleValue.map(probability) ?? "?"
            let result = check["mismatch"]?.boolValue == true
                ? "MISMATCH: the split or the attribution is broken, every comparison is suspect" : "no mismatch"
            out += "sample-ratio check (\(members), same terms): p = \(pValue): \(result)\n"
        }
        let notKnown = (report["notKnown"]?.arrayValue ?? []).compactMap(\.stringValue)
        out += "not known from the notifications, so in no figure: " + notKnown.joined(separator: "; ") + "\n"
        return out
    }

    /// `paywallProduct in production (split since version 42, 2026-12-01 09:00 UTC): 2026-12-01 to 2026-12-08, Production`.
    static func heading(_ report: [String: JSONValue]) -> String {
        var text = ""
        if let flag = report["flag"]?.stringValue, let environment = report["environment"]?.stringValue {
            text = "\(flag) in \(environment)"
            if let since = report["splitSince"], let version = since["version"]?.integerValue {
                let at = since["publishedAt"]?.stringValue.map { " " + String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC" } ?? ""
                text += " (split since version \(version),\(at))"
            }
            text += ": "
        }
        let from = report["from"]?.stringValue.map { String($0.prefix(10)) } ?? "?"
        let to = report["to"]?.stringValue.map { String($0.prefix(10)) } ?? "?"
        return text + "\(from) to \(to), \(report["appStoreEnvironment"]?.stringValue ?? "Production") notifications"
    }

    static func count(_ value: JSONValue?) -> String { value?.integerValue.map(String.init) ?? "-" }
    static func amount(_ value: Double) -> String { String(format: "%.2f", value) }
    static func percent(_ value: Double?) -> String {
        guard let value else { return "-" }
        return value == value.rounded() ? "\(Int(value))%" : String(format: "%.3g%%", value)
    }
    static func level(_ alpha: Double?) -> String { alpha.map { String(format: "%g%%", (1 - $0) * 100) } ?? "95%" }
    static func probability(_ value: Double) -> String { value >= 0.001 ? String(format: "%.3f", value) : String(format: "%.1e", value) }
}
