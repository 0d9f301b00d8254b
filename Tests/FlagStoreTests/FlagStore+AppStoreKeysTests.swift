import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// The subscription hash's key: created once, the same for every store instance on one database (every node), also
/// when they race for the first one.
@Suite struct FlagStoreAppStoreKeysTests {
    @Test(arguments: StoreEngine.allCases) func theKeyIsCreatedOnceAndSharedByEveryInstance(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let location = try engine.location(directory)
        let first = try FlagStore.open(location: location)
        defer { first.close() }
        let second = try FlagStore.open(location: location)
        defer { second.close() }
        #expect(try Self.rows(first) == 0, "no key before first use")
        let key = try first.subscriptionHashKey()
        #expect(key.count == 32 && Set(key).count > 8, "32 random bytes")
        #expect(try first.subscriptionHashKey() == key)
        #expect(try second.subscriptionHashKey() == key)
        #expect(try Self.rows(second) == 1)

        // Another database gets a key of its own.
        let elsewhere = try engine.open(try TemporaryDirectory())
        defer { elsewhere.close() }
        #expect(try elsewhere.subscriptionHashKey() != key)
    }

    @Test(arguments: StoreEngine.allCases) func instancesRacingForTheFirstKeyAllGetTheSameOne(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let location = try engine.location(directory)
        let stores = try (0..<4).map { _ in try FlagStore.open(location: location) }
        defer { for store in stores { store.close() } }
        let keys = concurrently(stores.count) { index in attempt { try stores[index].subscriptionHashKey() } }
        let values = keys.compactMap { try? $0.get() }
        #expect(values.count == stores.count, "\(keys)")
        #expect(Set(values).count == 1 && values.first?.count == 32)
        #expect(try Self.rows(stores[0]) == 1)
    }

    @Test func aKeyOfTheWrongLengthIsReportedAsCorruption() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        defer { store.close() }
        let editor = try Database(path: path)
        // Below the CHECK, as a hand edit or a damaged page would leave it.
        try editor.execute("PRAGMA ignore_check_constraints = ON")
        try editor.run("INSERT INTO appstore_keys (name, key) VALUES ('subscription', ?)", [.blob([1, 2, 3])])
        editor.close()
        let error = #expect(throws: FlagStoreError.self) { try store.subscriptionHashKey() }
        #expect(error?.description.contains("appstore_keys.subscription holds 3 bytes, not 32") == true, "\(String(describing: error))")
    }

    /// Rows of `appstore_keys`.
    static func rows(_ store: FlagStore) throws -> Int {
        try store.read { database in try database.queryFirst("SELECT count(*) FROM appstore_keys") { $0.int(0) } ?? -1 }
    }
}
