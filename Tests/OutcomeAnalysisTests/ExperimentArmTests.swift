import OutcomeAnalysis
import Testing

@Suite struct ExperimentArmTests {
    @Test func anArmIsNamedByItsProductAndOffer() {
        #expect(ExperimentArm(product: "symi.plus.monthly", share: 50).name == "symi.plus.monthly")
        let offered = ExperimentArm(product: "symi.plus.monthly", offer: "LAUNCH", share: 25, listPrice: 4990, currency: "EUR")
        #expect(offered.name == "symi.plus.monthly/LAUNCH" && offered.listPrice == 4990 && offered.currency == "EUR")
    }
}
