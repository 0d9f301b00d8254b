import OutcomeAnalysis
import Testing

@Suite struct GuardRuleErrorTests {
    @Test func itsDescriptionLeadsWithTheField() {
        let error = GuardRuleError(field: "threshold", message: "a ceiling needs a threshold")
        #expect(error.description == "threshold: a ceiling needs a threshold")
        #expect(error != GuardRuleError(field: "baseline", message: "a ceiling needs a threshold"))
    }
}
