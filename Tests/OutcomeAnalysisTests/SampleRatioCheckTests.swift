@testable import OutcomeAnalysis
import Testing

@Suite struct SampleRatioCheckTests {
    static let arms = [
        ExperimentArm(product: "symi.plus.monthly", share: 40, listPrice: 4990, currency: "EUR"),
        ExperimentArm(product: "symi.plus.monthly.b", share: 40, listPrice: 4990, currency: "EUR"),
        ExperimentArm(product: "symi.plus.monthly.hi", share: 20, listPrice: 5990, currency: "EUR"),
        ExperimentArm(product: "symi.plus.monthly", offer: "LAUNCH", share: 10, listPrice: 4990, currency: "EUR"),
    ]

    @Test func onlyArmsWithTheSameTermsAreChecked() {
        // The two arms at 4.99 without an offer form the one group; the 5.99 arm and the offer arm are not comparable.
        let checks = SampleRatioCheck.check(arms: Self.arms, dailyStarted: [[100, 200], [98, 205], [10, 20], [1, 2]], alpha: 0.001)
        #expect(checks.count == 1 && checks.first?.arms == [0, 1])
        #expect(checks.first?.mismatch == false && (checks.first?.pValue ?? 0) > 0.5)
        #expect(SampleRatioCheck.defaultAlpha == 0.001)
    }

    @Test func aBrokenSplitBetweenEqualArmsIsAMismatch() {
        let checks = SampleRatioCheck.check(arms: Self.arms, dailyStarted: [[150, 300], [100, 200], [10, 20], [1, 2]], alpha: 0.001)
        #expect(checks.first?.mismatch == true)
    }

    @Test func withoutArmsOfEqualTermsNothingIsCheckable() {
        let arms = [ExperimentArm(product: "a", share: 50, listPrice: 4990), ExperimentArm(product: "b", share: 50, listPrice: 5990),
                    ExperimentArm(product: "c", share: 50)]
        #expect(SampleRatioCheck.check(arms: arms, dailyStarted: [[1], [1], [1]], alpha: 0.001).isEmpty)
    }
}
