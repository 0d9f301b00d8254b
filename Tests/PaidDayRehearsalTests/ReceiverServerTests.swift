import Foundation
import PaidDayRehearsal
import Testing

/// The rehearsal's server: what it posts is stored once each (Apple's retries too), and a read it cannot make fails.
@Suite struct ReceiverServerTests {
    @Test func postedNotificationsAreStoredOnce() throws {
        let server = try ReceiverServer(flagsDirectory: ExperimentRehearsalTests.flags)
        defer { server.stop() }
        let start = Int64(Date().timeIntervalSince1970 * 1000) / NotificationWeek.day * NotificationWeek.day - 3 * NotificationWeek.day
        var truth = NotificationWeek.Truth(arms: [ArmTruth(product: "p.r", share: 1, conversion: 0.1)], installsPerDay: 300)
        truth.days = 2
        let week = NotificationWeek(truth: truth, start: start, tag: "rs", seed: 2)
        try server.post(week.notifications)
        try server.post(Array(week.notifications.prefix(10)), connections: 2)
        let stored = try server.store.notifications(signedFrom: 0, to: .max)
        #expect(stored.count == week.notifications.count && !stored.isEmpty)
        #expect(Set(stored.map(\.notificationUUID)) == Set(week.notifications.map(\.uuid)))
        #expect(throws: ReceiverServer.Failure.self) { try server.getJSON("/v1/appstore/outcomes?bucket=week") }
    }
}
