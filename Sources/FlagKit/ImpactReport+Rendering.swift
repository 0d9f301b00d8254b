import Foundation

/// Printing and encoding an `ImpactReport`.
extension ImpactReport {
    /// Readable lines: one per flag and transition,
    /// `checkoutEnabled: 12.4% of sampled installs change false -> true (12,403 of 100,000)`,
    /// and one line naming the flags nobody sees change.
    public var lines: [String] {
        var lines: [String] = []
        for flag in flags where flag.changed > 0 {
            for transition in flag.transitions {
                let from = Self.shortText(transition.from)
                let to = Self.shortText(transition.to)
                lines.append("\(flag.key): \(Self.percent(transition.count, of: sampleSize)) of sampled installs change \(from) -> \(to)"
                             + " (\(Self.grouped(transition.count)) of \(Self.grouped(sampleSize)))")
            }
        }
        let unchanged = flags.filter { $0.changed == 0 }.map(\.key)
        if !unchanged.isEmpty { lines.append("unchanged for every sampled install: " + unchanged.joined(separator: ", ")) }
        return lines
    }

    /// The report as JSON: `{"sampleSize": N, "flags": {KEY: {"changed": n, "share": s, "transitions": [...]}}}`;
    /// a side where the flag is absent has no `from` / `to` member.
    public var jsonValue: JSONValue {
        var flagValues: [String: JSONValue] = [:]
        for flag in flags {
            let transitions: [JSONValue] = flag.transitions.map { transition in
                var object: [String: JSONValue] = ["count": .integer(Int64(transition.count))]
                if let from = transition.from { object["from"] = from }
                if let to = transition.to { object["to"] = to }
                return .object(object)
            }
            flagValues[flag.key] = [
                "changed": .integer(Int64(flag.changed)),
                "share": .numeric(sampleSize == 0 ? 0 : Double(flag.changed) / Double(sampleSize)),
                "transitions": .array(transitions),
            ]
        }
        return ["sampleSize": .integer(Int64(sampleSize)), "flags": .object(flagValues)]
    }

    /// `12.4%`; a share too small for one decimal shows as `<0.1%`, never as a misleading `0.0%`.
    public static func percent(_ count: Int, of total: Int) -> String {
        guard total > 0 else { return "0%" }
        let share = Double(count) * 100 / Double(total)
        if count > 0, share < 0.05 { return "<0.1%" }
        return String(format: "%.1f%%", share)
    }

    /// `100,000`.
    public static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// A value as compact JSON, cut to 60 characters (copy objects are long), or `(absent)`.
    static func shortText(_ value: JSONValue?) -> String {
        let text = ImpactAnalysis.describe(value)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}
