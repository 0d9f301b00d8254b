import Foundation
import OutcomeAnalysis
import PaidDayRehearsal
import Testing

/// Normal weeks through the real receiver (CI-sized; the release run is `paid-day-rehearsal --guard-weeks 1000`).
@Suite(.serialized) struct GuardWeeksTests {
    @Test func normalWeeksThroughTheReceiverDoNotTrip() throws {
        var settings = GuardWeeks.Settings()
        settings.weeks = 6
        let start = Int64(Date().timeIntervalSince1970 * 1000) / NotificationWeek.day * NotificationWeek.day - 12 * NotificationWeek.day
        let figures = try GuardWeeks.run(settings, flagsDirectory: ExperimentRehearsalTests.flags, start: start)
        print("normal weeks: \(figures)")
        #expect(figures.weeks == 6 && figures.looks == 6 * 72)
        #expect(figures.tripped == 0)
        #expect(figures.notifications > 6 * 100, "refunds at 0.3 to 3 an hour over 11 days")
        #expect(figures.looksAtMinimumCount > 72, "the busier weeks reach the minimum count")
    }

    /// The weeks' refunds run at their level: the hourly series the guard reads has the level's mean.
    @Test func aWeekHasItsRefundLevel() {
        let (week, publishedAt) = GuardWeeks.week(1, GuardWeeks.Settings(), start: 1_796_083_200_000)
        let refunds = week.notifications.filter { if case .refunded = $0.kind { true } else { false } }.count
        let hours = Double(week.end - week.start) / Double(NotificationWeek.hour)
        #expect(abs(Double(refunds) / hours - 1.0) < 0.15, "1 an hour: \(Double(refunds) / hours)")
        #expect(publishedAt == 1_796_083_200_000 + 7 * NotificationWeek.day + NotificationWeek.hour + 30 * 60_000)
    }
}
