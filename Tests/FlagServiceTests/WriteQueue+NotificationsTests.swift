import AppStoreNotifications
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The writer's notification jobs: the ones taken together share one commit, each answered with what the store did.
@Suite struct WriteQueueNotificationsTests {
    static func record(_ uuid: String, signedDate: Int64 = 1_796_000_000_000) -> NotificationRecord {
        NotificationRecord(notificationUUID: uuid, notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: signedDate,
                           receivedAt: signedDate + 5, environment: "Production")
    }

    @Test func notificationsQueuedTogetherAreOneCommitAndDuplicatesAreNotStoredTwice() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = WriteQueueFixtures.Outcomes()
        let done = DispatchGroup()
        let uuids = ["n-1", "n-2", "n-1", "n-3"]
        // Queued before the writer starts: it takes all four at once.
        for (index, uuid) in uuids.enumerated() {
            done.enter()
            queue.submit(WriteJob(notification: Self.record(uuid)) { outcome in
                outcomes.set(index, outcome)
                done.leave()
            })
        }
        queue.start()
        defer { queue.stop() }
        done.wait()
        let stored = (0..<uuids.count).map { index -> Bool? in
            if case .notificationStored(let new)? = outcomes.lock.withLock({ outcomes.all[index] }) { return new }
            return nil
        }
        #expect(stored == [true, true, false, true])
        #expect(queue.metrics.batches.load(ordering: .relaxed) == 1, "one commit for the four")
        #expect(try store.notifications(signedFrom: 0, to: Int64.max).map(\.notificationUUID) == ["n-1", "n-2", "n-3"])
        let exposition = queue.metrics.render(snapshots: [:], server: nil)
        #expect(exposition.contains("flagserver_appstore_notifications_total{type=\"SUBSCRIBED\",subtype=\"INITIAL_BUY\"} 3\n"))
        #expect(exposition.contains("flagserver_appstore_duplicates_total 1\n"))
    }

    @Test func aFailedCommitAnswersEveryJob503() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        store.close()
        let outcomes = WriteQueueFixtures.Outcomes()
        queue.storeNotifications([WriteJob(notification: Self.record("a")) { outcomes.set(0, $0) },
                                  WriteJob(notification: Self.record("b")) { outcomes.set(1, $0) }])
        #expect(outcomes.status(0) == 503 && outcomes.status(1) == 503)
        #expect(queue.health.problem(store: store) != nil)
    }
}
