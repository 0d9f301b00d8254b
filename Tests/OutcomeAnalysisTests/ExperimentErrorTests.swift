import OutcomeAnalysis
import Testing

@Suite struct ExperimentErrorTests {
    @Test func itsDescriptionLeadsWithTheField() {
        #expect(ExperimentError(field: "arms[1].share", message: "must be a number > 0").description == "arms[1].share: must be a number > 0")
    }
}
