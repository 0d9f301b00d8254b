@testable import OutcomeAnalysis
import Testing

@Suite struct GuardDecisionTests {
    @Test func noFiguresMeansNothingWasTested() {
        let none = GuardFigures.none
        #expect(none.count == 0 && none.hours == 0 && none.pValue == 1 && none.threshold == nil)
        let decision = GuardDecision(verdict: .outsideWindow, figures: none)
        #expect(decision != GuardDecision(verdict: .held, figures: none))
        #expect(GuardVerdict.allCases.map(\.rawValue) == ["held", "tripped", "outsideWindow", "notEnoughData"])
    }
}

extension GuardDecisionTests {
    @Test func theMessageNamesTheGuardAndItsFigures() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        let figures = GuardFigures(observed: 6, baseline: 2, threshold: 3.1666, count: 36, expectedCount: 12,
                                   pValue: 3.14e-12, perLookAlpha: 0.01 / 4320, hours: 6)
        #expect(GuardDecision(verdict: .tripped, figures: figures).message(for: rule)
            == "guard on refunds tripped: 6 per hour over 6 hours against 2 the week before (trips at 3.17); 36 counted, 12 expected, p = 3.1e-12 (per look 2.3e-06)")
        let ceiling = try GuardRule(metric: .autoRenewOff, measure: .perActive, baseline: .ceiling(0.002), action: .notify)
        let held = GuardFigures(observed: 0.0012, baseline: 0.002, threshold: nil, count: 5, expectedCount: 8.3,
                                pValue: 0.9, perLookAlpha: 2.3e-6, hours: 1)
        #expect(GuardDecision(verdict: .held, figures: held).message(for: ceiling)
            == "guard on autoRenewOff held: 0.0012 per active subscription-hour over 1 hour against a ceiling of 0.002; 5 counted, 8.3 expected, p = 9.0e-01 (per look 2.3e-06)")
        #expect(GuardDecision(verdict: .outsideWindow, figures: .none).message(for: rule) == "guard on refunds is outside its window")
    }

    @Test func numbersAreShortened() {
        #expect(GuardDecision.short(6) == "6" && GuardDecision.short(3.1666) == "3.17" && GuardDecision.short(0.1) == "0.1")
        #expect(GuardDecision.short(0.05) == "0.05" && GuardDecision.short(-2.5) == "-2.5" && GuardDecision.short(.infinity) == "inf")
        #expect(GuardDecision.short(0.0012) == "0.0012" && GuardDecision.short(0.999) == "1" && GuardDecision.short(-0.25) == "-0.25")
        #expect(GuardDecision.scientific(1) == "1.0" && GuardDecision.scientific(0.000_002_314_8) == "2.3e-06")
        #expect(GuardDecision.scientific(9.96) == "1.0e+01" && GuardDecision.scientific(0) == "0")
    }
}
