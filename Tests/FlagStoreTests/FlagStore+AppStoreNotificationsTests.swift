import AppStoreNotifications
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// App Store notifications in the store, on both engines: stored once per UUID, every field read back, listed by
/// range and product in order, deleted by age; carried by backup and restore, checked by `integrityCheck`.
@Suite struct FlagStoreAppStoreNotificationsTests {
    /// A notification signed at `signedDate` for `product`.
    static func record(_ uuid: String, signedDate: Int64, product: String? = "symi.plus.monthly",
                       type: String = "DID_RENEW") -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: uuid, notificationType: type, signedDate: signedDate,
                                        receivedAt: signedDate + 5, environment: "Production")
        record.productID = product
        return record
    }

    /// A record with every optional field set, to values each column must keep exactly (64-bit times, quotes, non-ASCII).
    static var full: NotificationRecord {
        var record = NotificationRecord(notificationUUID: "9a8b7c6d-0000-4000-8000-00000000beef", notificationType: "SUBSCRIBED",
                                        subtype: "INITIAL_BUY", signedDate: 1_764_000_000_123, receivedAt: 1_764_000_000_999,
                                        environment: "Sandbox")
        record.productID = "symi.plus.yearly"
        record.offerType = 1
        record.offerIdentifier = "launch 'ü' ?"
        record.offerDiscountType = "FREE_TRIAL"
        record.price = 0
        record.currency = "EUR"
        record.storefront = "DEU"
        record.transactionReason = "PURCHASE"
        record.expiresDate = Int64.max - 1
        record.expirationIntent = 3
        record.revocationReason = 1
        record.priceIncreaseStatus = 0
        record.autoRenewStatus = 1
        record.isInBillingRetryPeriod = true
        record.gracePeriodExpiresDate = 1_764_604_800_000
        record.subscription = String(repeating: "0f", count: 32)
        return record
    }

    @Test(arguments: StoreEngine.allCases) func eachUUIDIsStoredOnceAlsoTwiceInOneBatch(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        let first = Self.record("a", signedDate: 1_000)
        let second = Self.record("b", signedDate: 2_000)
        #expect(try store.storeNotifications([]) == [])
        #expect(try store.storeNotifications([first, second]) == [true, true])
        #expect(try store.storeNotifications([second]) == [false], "Apple's retry of a stored notification")
        var again = Self.record("c", signedDate: 3_000)
        let differentBody = { () -> NotificationRecord in
            var copy = again
            copy.receivedAt += 1
            return copy
        }()
        #expect(try store.storeNotifications([again, first, differentBody, Self.record("d", signedDate: 4_000)])
            == [true, false, false, true])
        // The first of a batch's twins is the one kept.
        #expect(try store.notifications(signedFrom: 0, to: 10_000).map(\.notificationUUID) == ["a", "b", "c", "d"])
        #expect(try store.notifications(signedFrom: 3_000, to: 3_001) == [again])
        again.notificationUUID = ""
        #expect(throws: FlagStoreError.invalidArgument(name: "notificationUUID", reason: "must not be empty")) {
            try store.storeNotifications([again])
        }
    }

    @Test(arguments: StoreEngine.allCases) func aBatchWiderThanOneLookupStoresEveryNewRecordAndNoOld(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        let records = (0..<150).map { Self.record(String(format: "uuid-%03d", $0), signedDate: Int64($0)) }
        let old = stride(from: 0, to: 150, by: 3).map { records[$0] }
        #expect(try store.storeNotifications(old) == Array(repeating: true, count: old.count))
        let answers = try store.storeNotifications(records + records.prefix(5))
        #expect(answers == (0..<155).map { $0 < 150 && $0 % 3 != 0 })
        #expect(try store.notifications(signedFrom: 0, to: 1_000) == records)
    }

    /// On PostgreSQL a batch is few round trips: BEGIN and the lock ride with the first existence query, the INSERTs
    /// with COMMIT; each further 64 UUIDs cost one more query.
    @Test func aBatchIsTwoRoundTripsOnPostgreSQLUpTo64Records() throws {
        let directory = try TemporaryDirectory()
        let store = try StoreEngine.postgres.open(directory)
        defer { store.close() }
        for (size, trips) in [(1, 2), (3, 2), (64, 2), (65, 3), (200, 5)] {
            let records = (0..<size).map { Self.record("trip-\(size)-\($0)", signedDate: Int64($0)) }
            let before = store.writerRoundTrips
            #expect(try store.storeNotifications(records) == Array(repeating: true, count: size))
            #expect(store.writerRoundTrips - before == trips, "\(size) records")
            let again = store.writerRoundTrips
            #expect(try store.storeNotifications(records) == Array(repeating: false, count: size))
            #expect(store.writerRoundTrips - again == trips, "\(size) records, all there already")
        }
    }

    @Test(arguments: StoreEngine.allCases) func everyFieldReadsBackAsStoredAlsoWhenNil(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let location = try engine.location(directory)
        let store = try FlagStore.open(location: location)
        let bare = NotificationRecord(notificationUUID: "test-1", notificationType: "TEST", signedDate: 5, receivedAt: 6,
                                      environment: "Sandbox")
        var off = Self.full
        off.notificationUUID = "off"
        off.isInBillingRetryPeriod = false
        off.price = -1
        #expect(try store.storeNotifications([Self.full, bare, off]) == [true, true, true])
        store.close()
        let reopened = try FlagStore.open(location: location)
        defer { reopened.close() }
        let read = try reopened.notifications(signedFrom: .min, to: .max)
        #expect(read == [bare, Self.full, off])
    }

    @Test(arguments: StoreEngine.allCases) func rangesAreHalfOpenOrderedAndFilteredByProductAndLimit(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        // Stored out of order; two share a signedDate and are ordered by UUID, byte-wise ("B" < "a").
        let records = [Self.record("z", signedDate: 300, product: "yearly"), Self.record("a", signedDate: 200),
                       Self.record("B", signedDate: 200, product: "yearly"), Self.record("m", signedDate: 100),
                       Self.record("t", signedDate: 400, product: nil, type: "TEST")]
        _ = try store.storeNotifications(records)
        #expect(try store.notifications(signedFrom: 0, to: 1_000).map(\.notificationUUID) == ["m", "B", "a", "z", "t"])
        #expect(try store.notifications(signedFrom: 100, to: 300).map(\.notificationUUID) == ["m", "B", "a"])
        #expect(try store.notifications(signedFrom: 101, to: 301).map(\.notificationUUID) == ["B", "a", "z"])
        #expect(try store.notifications(signedFrom: 0, to: 1_000, product: "yearly").map(\.notificationUUID) == ["B", "z"])
        #expect(try store.notifications(signedFrom: 0, to: 1_000, product: "none").isEmpty)
        #expect(try store.notifications(signedFrom: 0, to: 1_000, limit: 2).map(\.notificationUUID) == ["m", "B"])
        #expect(try store.notifications(signedFrom: 0, to: 1_000, product: "symi.plus.monthly", limit: 1).map(\.notificationUUID) == ["m"])
        #expect(try store.notifications(signedFrom: 0, to: 1_000, limit: 0).isEmpty)
        #expect(try store.notifications(signedFrom: 300, to: 300).isEmpty && store.notifications(signedFrom: 400, to: 100).isEmpty)
        #expect(throws: FlagStoreError.invalidArgument(name: "limit", reason: "must not be negative")) {
            try store.notifications(signedFrom: 0, to: 1, limit: -1)
        }
    }

    @Test(arguments: StoreEngine.allCases) func deletionRemovesWhatWasSignedBeforeTheDateOnly(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.storeNotifications((1...5).map { Self.record("n\($0)", signedDate: Int64($0) * 100) })
        #expect(try store.deleteNotifications(signedBefore: 300) == 2)
        #expect(try store.deleteNotifications(signedBefore: 300) == 0)
        #expect(try store.notifications(signedFrom: 0, to: 1_000).map(\.signedDate) == [300, 400, 500])
        // A deleted UUID is new again (Apple would have to send it after the retention, as a backfill could).
        #expect(try store.storeNotifications([Self.record("n1", signedDate: 100)]) == [true])
    }

    @Test(arguments: StoreEngine.allCases) func aCountIsOfTheHalfOpenRange(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.storeNotifications((1...5).map { Self.record("n\($0)", signedDate: Int64($0) * 100) })
        #expect(try store.notificationCount(signedFrom: 200, to: 500) == 3)
        #expect(try store.notificationCount(signedFrom: 0, to: 1_000) == 5)
        #expect(try store.notificationCount(signedFrom: 500, to: 500) == 0)
        // A late record in the range counts; a record stored again does not.
        _ = try store.storeNotifications([Self.record("late", signedDate: 250), Self.record("n2", signedDate: 200)])
        #expect(try store.notificationCount(signedFrom: 200, to: 500) == 4)
    }

    @Test func backupAndRestoreCarryTheNotificationsAndTheKey() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { store.close() }
        _ = try store.storeNotifications([Self.full])
        let key = try store.subscriptionHashKey()
        try store.backup(to: directory.file("backup.sqlite"))
        _ = try store.deleteNotifications(signedBefore: .max)
        #expect(try store.integrityCheck() == ["ok"] && store.startupCheck() == ["ok"])

        let other = try FlagStore.open(location: directory.file("other.sqlite"))
        defer { other.close() }
        _ = try other.storeNotifications([Self.record("replaced", signedDate: 1)])
        try other.restore(from: directory.file("backup.sqlite"), actor: "ops")
        #expect(try other.notifications(signedFrom: .min, to: .max) == [Self.full])
        #expect(try other.subscriptionHashKey() == key)
        #expect(try other.integrityCheck() == ["ok"])
    }

    /// A backup of schema 4 (before this table) restored into this build is migrated and takes notifications.
    @Test func restoringASchema4BackupMigratesIt() throws {
        let directory = try TemporaryDirectory()
        let backupPath = directory.file("old-backup.sqlite")
        let old = try SQLiteConnection(path: backupPath)
        _ = try old.setJournalMode("WAL")
        try SQLiteMigrations.migrate(old, path: backupPath, through: 4)
        old.close()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        defer { store.close() }
        _ = try store.storeNotifications([Self.full])
        try store.restore(from: backupPath, actor: "ops")
        #expect(try SQLiteConnection(path: store.location, mode: .readOnly).userVersion() == Schema.latestVersion)
        #expect(try store.notifications(signedFrom: .min, to: .max).isEmpty)
        #expect(try store.storeNotifications([Self.full]) == [true])
        #expect(try store.subscriptionHashKey().count == 32)
    }
}
