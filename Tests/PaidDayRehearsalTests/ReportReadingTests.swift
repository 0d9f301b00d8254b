import Foundation
import OutcomeAnalysis
@testable import PaidDayRehearsal
import Testing

/// The comparison of a server report with the analysis of the truth finds a difference in any compared field, so the
/// rehearsal's "equal" can fail.
@Suite struct ReportReadingTests {
    /// `report` as the experiment route writes it (amounts in the currency's units).
    static func json(_ report: ExperimentReport) -> [String: Any] {
        let arms: [[String: Any]] = report.arms.map { arm in
            ["product": arm.arm.product, "started": arm.started, "introStarts": arm.introStarts,
             "freeTrialStarts": arm.freeTrialStarts, "introConversions": arm.introConversions, "renewals": arm.renewals,
             "refunds": arm.refunds, "paidPeriods": arm.paidPeriods,
             "revenueAtListPrice": Double(arm.revenueAtListPrice ?? 0) / 1000, "dailyStarted": arm.dailyStarted]
        }
        let comparisons: [[String: Any]] = report.comparisons.map { comparison in
            let result = comparison.result
            let winner = report.arms[result.rateRatio > 1 ? comparison.first : comparison.second].arm.name
            return ["first": comparison.first, "second": comparison.second, "ratio": result.rateRatio,
                    "lower": result.interval.lowerBound, "upper": result.interval.upperBound, "pValue": result.pValue,
                    "decided": result.decided, "verdict": result.decided ? "\(winner) starts more per share" : "not decided yet"]
        }
        return ["arms": arms, "comparisons": comparisons]
    }

    @Test func everyComparedFieldCanDiffer() throws {
        var settings = ExperimentRehearsal.Settings()
        settings.experiments = 1
        settings.effectExperiments = 1
        let truth = ExperimentRehearsal.truth(1, settings)
        let week = NotificationWeek(truth: truth, start: 1_796_083_200_000, tag: "rr", seed: 5)
        let report = try ExperimentAnalysis.analyze(arms: ExperimentRehearsal.arms(truth), history: week.notifications.map { $0.record() },
                                                    from: week.start, to: week.end)
        let json = Self.json(report)
        #expect(ReportReading.differences(json, report, truthStarted: week.started).isEmpty)
        #expect(try ReportReading.comparison(json).decided == report.comparisons[0].result.decided)

        var arms = try #require(json["arms"] as? [[String: Any]])
        arms[1]["refunds"] = (arms[1]["refunds"] as? Int ?? 0) + 1
        arms[0]["dailyStarted"] = [0]
        var changed = json
        changed["arms"] = arms
        var comparisons = try #require(json["comparisons"] as? [[String: Any]])
        comparisons[0]["upper"] = (comparisons[0]["upper"] as? Double ?? 0) * 1.001
        comparisons[0]["decided"] = !(comparisons[0]["decided"] as? Bool ?? false)
        changed["comparisons"] = comparisons
        let differences = ReportReading.differences(changed, report, truthStarted: week.started)
        #expect(differences.count == 4, "\(differences)")
        #expect(differences.contains { $0.hasPrefix("arm 1 refunds") } && differences.contains { $0.hasPrefix("arm 0 dailyStarted") })
        #expect(!ReportReading.differences(json, report, truthStarted: week.started.map { $0 + 1 }).isEmpty,
                "the analysis's starts are compared with the generator's own count")
    }
}
