import PaidDayRehearsal
import Testing

/// The guard through the real server: a refund spike inside the window trips it and the service's own job rolls the
/// change back through the writer; the same population without the spike holds through the window.
@Suite(.serialized) struct GuardTripTests {
    @Test func aRefundSpikeTripsTheGuardAndTheJobRollsBack() throws {
        let figures = try GuardTrip.run(flagsDirectory: ExperimentRehearsalTests.flags)
        print(figures.summary)
        #expect(figures.status == "tripped", "\(figures.summary)")
        #expect(figures.rolledBack && figures.rollbackAuthor == "guard", "\(figures.summary)")
        #expect((figures.hoursAfterSpike ?? .max) <= 24, "a x4 spike at 1 an hour trips within a day: \(figures.summary)")
        #expect(figures.message.contains("tripped"), "\(figures.message)")
    }

    @Test func theClosingPassDependsOnTheMinuteOfPublication() {
        let hourStart: Int64 = 1_796_000_400_000 / 3_600_000 * 3_600_000
        #expect(GuardTrip.closingPass(published: hourStart) == 72)
        #expect(GuardTrip.closingPass(published: hourStart + 60_000) == 72, "the 72nd pass is exactly at the window's end")
        #expect(GuardTrip.closingPass(published: hourStart + 60_001) == 73)
        #expect(GuardTrip.closingPass(published: hourStart + 3_599_999) == 73)
    }

    @Test func theSamePopulationWithoutTheSpikeHolds() throws {
        let figures = try GuardTrip.run(flagsDirectory: ExperimentRehearsalTests.flags, factor: 1)
        print(figures.summary)
        // Closed by the pass that first reaches the window's end, which depends on the minute of publication.
        #expect(figures.status == "closed" && figures.passes == figures.closingPass && (72...73).contains(figures.closingPass),
                "\(figures.summary); closing pass \(figures.closingPass)")
        #expect(figures.rollbackVersion == nil)
    }
}
