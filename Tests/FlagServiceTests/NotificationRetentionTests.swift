import AppStoreNotifications
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// Records past the retention are deleted, at most once an hour.
@Suite struct NotificationRetentionTests {
    @Test func deletesWhatIsPastTheRetentionOnceAnHour() throws {
        try withTemporaryStore { store in
            let now: Int64 = 1_800_000_000_000
            let day: Int64 = 86_400_000
            let records = [now - 11 * day, now - 9 * day, now - day].enumerated().map { index, signed in
                NotificationRecord(notificationUUID: "r\(index)", notificationType: "DID_RENEW", signedDate: signed,
                                   receivedAt: signed, environment: "Production")
            }
            _ = try store.storeNotifications(records)
            let retention = NotificationRetention(store: store, options: FlagService.AppStoreOptions(retentionDays: 10),
                                                  logger: ServiceLogger(minimumLevel: .off))
            #expect(retention.runIfDue(now: now) == 1)
            #expect(try store.notifications(signedFrom: 0, to: Int64.max).map(\.notificationUUID) == ["r1", "r2"])
            // Within the hour nothing runs; an hour later it does (nothing more is past ten days then).
            #expect(retention.runIfDue(now: now + NotificationRetention.interval - 1) == nil)
            #expect(retention.runIfDue(now: now + NotificationRetention.interval) == 0)
            #expect(retention.runIfDue(now: now + 2 * day) == 1, "r1, nine days old two days ago")
        }
    }

    @Test func theServiceRunsItAtStart() async throws {
        let fixture = try AppStoreFixture(retentionDays: 1)
        // Stored before the service starts, long past one day.
        let directory = try makeTemporaryDirectory()
        do {
            let store = try FlagStore.open(location: directory + "/flags.sqlite")
            _ = try store.storeNotifications([NotificationRecord(notificationUUID: "old", notificationType: "TEST", signedDate: 1_000,
                                                                 receivedAt: 1_000, environment: "Sandbox")])
            store.close()
        }
        let server = try TestServer(directory: directory, options: fixture.options)
        defer { server.stop() }
        #expect(await eventually(within: .seconds(30)) { (try? server.store.notifications(signedFrom: 0, to: Int64.max).isEmpty) == true })
        #expect(server.logLines.all.contains { $0.contains("event=appstore_retention") && $0.contains("deleted=1") })
    }
}
