import OutcomeAnalysis
import Testing

@Suite struct ExperimentReportTests {
    @Test func aComparisonSaysNotDecidedYetUntilItIs() {
        let open = SequentialRatioResult(pValue: 0.4, rateRatio: 1.1, interval: 0.8...1.5, decided: false)
        #expect(ArmComparison(first: 0, second: 1, result: open).verdict == "not decided yet")
        let higher = SequentialRatioResult(pValue: 0.01, rateRatio: 1.4, interval: 1.1...1.8, decided: true)
        #expect(ArmComparison(first: 0, second: 1, result: higher).verdict == "arm 0 starts more")
        let lower = SequentialRatioResult(pValue: 0.01, rateRatio: 0.7, interval: 0.5...0.9, decided: true)
        #expect(ArmComparison(first: 0, second: 2, result: lower).verdict == "arm 2 starts more")
        let report = ExperimentReport(arms: [], comparisons: [ArmComparison(first: 0, second: 1, result: open)], sampleRatioChecks: [], alpha: 0.05)
        #expect(report.comparisons.count == 1 && report.alpha == 0.05)
    }
}
