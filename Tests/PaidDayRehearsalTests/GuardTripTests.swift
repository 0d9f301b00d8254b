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

    @Test func theSamePopulationWithoutTheSpikeHolds() throws {
        let figures = try GuardTrip.run(flagsDirectory: ExperimentRehearsalTests.flags, factor: 1)
        print(figures.summary)
        #expect(figures.status == "closed" && figures.passes == 73, "\(figures.summary)")
        #expect(figures.rollbackVersion == nil)
    }
}
