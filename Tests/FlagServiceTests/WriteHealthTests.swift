import FlagService
import FlagServiceTestSupport
import FlagStore
import TestSupport
import Testing

/// What counts as writes failing.
@Suite struct WriteHealthTests {
    @Test func commitFailuresCountRefusalsDoNot() {
        #expect(WriteHealth.isCommitFailure(FlagStoreError.busy(cause: DatabaseError(extendedResultCode: 5, message: "locked", sql: nil))))
        #expect(WriteHealth.isCommitFailure(FlagStoreError.database(DatabaseError(extendedResultCode: 13, message: "full", sql: nil))))
        #expect(!WriteHealth.isCommitFailure(FlagStoreError.versionConflict(environment: "p", expected: 1, current: 2)))
        #expect(!WriteHealth.isCommitFailure(FlagStoreError.versionNotFound(environment: "p", number: 9)))
        #expect(!WriteHealth.isCommitFailure(FlagStoreError.damagedVersion(environment: "p", number: 1, storedHash: "a", actualHash: "b")))
    }

    @Test func aFailureIsClearedByTheNextCommit() throws {
        let directory = try makeTemporaryDirectory()
        let store = try FlagStore.open(location: directory + "/h.sqlite")
        defer { store.close() }
        let health = WriteHealth()
        #expect(health.problem(store: store) == nil)
        health.recordFailure(FlagStoreError.database(DatabaseError(extendedResultCode: 13, message: "database or disk is full", sql: nil)))
        #expect(health.problem(store: store)?.reason.contains("full") == true)
        #expect(health.failure != nil)
        health.recordSuccess()
        #expect(health.problem(store: store) == nil)
    }

    @Test func theProbesRecheckClearsOnlyAFailureOfAnUnavailableDatabaseAndOnlyWhenTheCheckPasses() throws {
        struct StillReadOnly: Error {}
        let health = WriteHealth()
        var checks = 0
        health.recordFailure(FlagStoreError.database(DatabaseError(extendedResultCode: 13, message: "database or disk is full", sql: nil)))
        try health.recheck { checks += 1 }
        #expect(checks == 0 && health.failure?.databaseUnavailable == false, "a full disk is shown gone only by a commit")
        health.recordFailure(FlagStoreError.unavailable(cause: DatabaseError(sqlState: "25006", message: "read-only transaction", sql: nil)))
        #expect(throws: StillReadOnly.self) { try health.recheck { throw StillReadOnly() } }
        #expect(health.failure?.databaseUnavailable == true)
        try health.recheck { checks += 1 }
        #expect(checks == 1 && health.failure == nil)
    }
}
