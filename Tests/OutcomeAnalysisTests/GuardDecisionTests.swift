import OutcomeAnalysis
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
