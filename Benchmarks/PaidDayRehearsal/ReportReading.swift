import Foundation
import OutcomeAnalysis

/// Reads the experiment route's JSON answer (docs/api.md, "Experiments") and compares it with
/// `ExperimentAnalysis.analyze` on the generated truth, field by field.
enum ReportReading {
    /// The first comparison's decision and rate ratio.
    struct Comparison {
        var decided: Bool
        var ratio: Double
    }

    static func comparison(_ report: [String: Any]) throws -> Comparison {
        guard let comparisons = report["comparisons"] as? [[String: Any]], let first = comparisons.first,
              let decided = first["decided"] as? Bool, let ratio = number(first["ratio"]) else {
            throw ReceiverServer.Failure(description: "no comparison in the report: \(report)")
        }
        return Comparison(decided: decided, ratio: ratio)
    }

    /// A JSON number as a Double.
    static func number(_ value: Any?) -> Double? {
        (value as? NSNumber)?.doubleValue
    }

    /// Every field where the server's `report` differs from `expected` (and the arms' started from the truth).
    static func differences(_ report: [String: Any], _ expected: ExperimentReport, truthStarted: [Int]) -> [String] {
        var differences: [String] = []
        let arms = report["arms"] as? [[String: Any]] ?? []
        guard arms.count == expected.arms.count else { return ["\(arms.count) arms, expected \(expected.arms.count)"] }
        for (index, (arm, want)) in zip(arms, expected.arms).enumerated() {
            let counts: [(String, Int)] = [
                ("started", want.started), ("introStarts", want.introStarts), ("freeTrialStarts", want.freeTrialStarts),
                ("introConversions", want.introConversions), ("renewals", want.renewals), ("refunds", want.refunds),
                ("paidPeriods", want.paidPeriods),
            ]
            for (name, value) in counts where (arm[name] as? NSNumber)?.intValue != value {
                differences.append("arm \(index) \(name): \(arm[name] ?? "absent"), expected \(value)")
            }
            if want.started != truthStarted[index] {
                differences.append("arm \(index): the analysis found \(want.started) starts, the truth has \(truthStarted[index])")
            }
            let daily = (arm["dailyStarted"] as? [NSNumber])?.map(\.intValue)
            if daily != want.dailyStarted { differences.append("arm \(index) dailyStarted: \(daily ?? []), expected \(want.dailyStarted)") }
            if let revenue = want.revenueAtListPrice, !sameRevenue(arm["revenueAtListPrice"], milliunits: revenue) {
                differences.append("arm \(index) revenueAtListPrice: \(arm["revenueAtListPrice"] ?? "absent"), expected \(revenue) milliunits")
            }
        }
        let comparisons = report["comparisons"] as? [[String: Any]] ?? []
        guard comparisons.count == expected.comparisons.count else {
            return differences + ["\(comparisons.count) comparisons, expected \(expected.comparisons.count)"]
        }
        for (got, want) in zip(comparisons, expected.comparisons) {
            let values: [(String, Double)] = [
                ("ratio", want.result.rateRatio), ("lower", want.result.interval.lowerBound),
                ("upper", want.result.interval.upperBound), ("pValue", want.result.pValue),
            ]
            for (name, value) in values where !close(number(got[name]), value) {
                differences.append("comparison \(want.first)-\(want.second) \(name): \(got[name] ?? "absent"), expected \(value)")
            }
            if got["decided"] as? Bool != want.result.decided {
                differences.append("comparison \(want.first)-\(want.second) decided: \(got["decided"] ?? "absent"), expected \(want.result.decided)")
            }
            // The route names the arm that starts more per share where the analysis numbers it.
            let winner = expected.arms[want.result.rateRatio > 1 ? want.first : want.second].arm.name
            let verdict = got["verdict"] as? String ?? ""
            if want.result.decided ? !verdict.contains(winner) : verdict != "not decided yet" {
                differences.append("comparison verdict: \(verdict), expected \(want.verdict) (\(winner))")
            }
        }
        return differences
    }

    /// Equal up to JSON's rounding of a double (the server prints the shortest form that reads back the same).
    static func close(_ got: Double?, _ want: Double) -> Bool {
        guard let got else { return false }
        if got == want { return true }
        if !want.isFinite || !got.isFinite { return got == want }
        return abs(got - want) <= 1e-9 * max(1, abs(want))
    }

    /// Revenue in milliunits, or in the currency's units (4.99): either form the route writes.
    static func sameRevenue(_ value: Any?, milliunits: Int64) -> Bool {
        guard let number = number(value) else { return false }
        return number == Double(milliunits) || abs(number * 1000 - Double(milliunits)) < 0.5
    }
}
