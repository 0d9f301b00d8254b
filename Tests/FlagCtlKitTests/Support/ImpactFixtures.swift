import FlagKit
import Foundation

/// The impact fixtures of FlagKitTests (`Tests/FlagKitTests/Fixtures/impact-*.json`): two documents whose
/// flags change in every way impact counts, for `diff --impact` run as a process.
enum ImpactFixtures {
    /// The text of `impact-NAME.json`.
    static func text(_ name: String) throws -> String {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: tests.appendingPathComponent("FlagKitTests/Fixtures/impact-\(name).json"), encoding: .utf8)
    }

    /// Per flag, `"from -> to"` to count, as FlagKit's `ImpactAnalysis` measures it on `sample`.
    static func expectedCounts(_ sample: [EvaluationContext]) throws -> [String: [String: Int]] {
        let report = ImpactAnalysis.measure(from: try FlagDocument.decode(text("before")), to: try FlagDocument.decode(text("after")), sample: sample)
        var counts: [String: [String: Int]] = [:]
        for flag in report.flags {
            for transition in flag.transitions {
                let from = transition.from?.canonicalString ?? "(absent)"
                let to = transition.to?.canonicalString ?? "(absent)"
                counts[flag.key, default: [:]]["\(from) -> \(to)"] = transition.count
            }
        }
        return counts
    }
}
