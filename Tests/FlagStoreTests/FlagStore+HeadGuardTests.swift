import Foundation
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing
@testable import FlagStore

/// A group commit on the heads the writer has installed (`publish(batch:knownHeads:)`, `HeadGuard`): one round trip on
/// PostgreSQL when they are the stored ones, and exactly the decisions of a batch that read its heads when they are not.
@Suite struct FlagStoreHeadGuardTests {
    private static func flips(_ count: Int, on head: Int, environment: String = "production", tag: String) -> [PublishRequest] {
        (0..<count).map {
            PublishRequest(environment: environment, document: document("\(tag)-\($0)"), author: "alice",
                           expectedCurrentVersion: head + $0, chainedOnPrevious: $0 > 0)
        }
    }

    /// `record` as a caller might wrongly believe it.
    private static func record(_ record: VersionRecord, number: Int, document: [UInt8]) -> VersionRecord {
        VersionRecord(environment: record.environment, number: number, document: document,
                      contentHash: FlagStore.contentHash(document), author: record.author,
                      createdAtMilliseconds: record.createdAtMilliseconds, message: record.message,
                      rolledBackFrom: record.rolledBackFrom, epoch: record.epoch)
    }

    private static func newest(_ results: [Result<PublishOutcome, FlagStoreError>]) throws -> VersionRecord {
        try #require(results.last.flatMap { try? $0.get().record })
    }

    /// After one batch that read its heads, every batch on the head it produced costs one round trip (1, 8, 64 flips,
    /// two environments), and everything it carried was committed.
    @Test func aBatchOnTheStoredHeadCostsOneRoundTrip() throws {
        let store = try FlagStore.open(location: try PostgresTestCluster.shared().createDatabase())
        defer { store.close() }
        try store.createEnvironment(name: "qa", actor: "ops")
        var production = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "first")))
        var qa = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, environment: "qa", tag: "first")))
        var statements: [Int: Int] = [:]
        for size in [1, 8, 64] {
            let before = store.writerRoundTrips
            let statementsBefore = store.writerStatementsSent
            let results = try store.publish(batch: Self.flips(size, on: production.number, tag: "\(size)")
                                                + Self.flips(2, on: qa.number, environment: "qa", tag: "\(size)"),
                                            audit: [AuditRecord(actor: "-", action: "publish", outcome: .refused, status: 401)],
                                            knownHeads: ["production": production, "qa": qa])
            #expect(store.writerRoundTrips - before == 1, "\(size) flips")
            statements[size] = store.writerStatementsSent - statementsBefore
            #expect(results.map { try? $0.get().record.number }
                    == (1...size).map { production.number + $0 } + [qa.number + 1, qa.number + 2])
            production = try results[size - 1].get().record
            qa = try Self.newest(results)
        }
        // The versions and audit lines of a batch go as one multi-row INSERT per table and run: as many statements for
        // 64 flips as for 8.
        #expect(statements[64] == statements[8] && (statements[64] ?? 0) < 20, "\(statements)")
        #expect(store.knownHeadMisses == 0)
        #expect(try store.currentVersion(environment: "production") == production)
        #expect(try store.currentVersion(environment: "qa") == qa)
        let lines = try store.auditEntries(limit: 1000)
        #expect(lines.filter { $0.action == "publish" && $0.outcome == .ok }.count == production.number + qa.number)
        #expect(lines.filter { $0.outcome == .refused }.count == 3)
    }

    /// Another node published after the head this writer knows: the server's check fails the whole pipeline (nothing
    /// of it is kept), and the batch is decided again on the stored head, rebuilt there as any overtaken batch.
    @Test func aHeadAnotherNodeMovedIsCheckedByTheServerAndTheBatchIsRebuilt() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let theirs = try other.publish(environment: "production", document: document("theirs"), author: "bob").record
        let seen = Mutex<[Int?]>([])
        let results = try store.publish(batch: Self.flips(2, on: mine.number, tag: "mine"), knownHeads: ["production": mine]) {
            index, newest in
            seen.withLock { $0.append(newest?.number) }
            return document("mine-\(index) on \(newest?.number ?? 0)")
        }
        #expect(store.knownHeadMisses == 1)
        #expect(results.map { try? $0.get().record.number } == [theirs.number + 1, theirs.number + 2])
        #expect(seen.withLock { $0 } == [theirs.number, theirs.number + 1])
        let stored = try #require(try store.currentVersion(environment: "production"))
        #expect(stored.number == theirs.number + 2 && stored.document == document("mine-1 on \(theirs.number + 1)"))
        // Each number once: the aborted pipeline kept nothing.
        #expect(try store.versions(environment: "production", limit: 100).map(\.number) == Array((1...stored.number).reversed()))
    }

    /// Several writers on one environment: after a head another writer moved, the next batch reads its head (two round
    /// trips) instead of trying a known head that is likely moved again; then known heads are tried again.
    @Test func afterAMovedHeadTheNextBatchReadsItsHead() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let theirs = try other.publish(environment: "production", document: document("theirs"), author: "bob").record
        let unconditional = PublishRequest(environment: "production", document: document("moved"), author: "alice")
        var head = try Self.newest(try store.publish(batch: [unconditional], knownHeads: ["production": mine]))
        #expect(store.knownHeadMisses == 1 && head.number == theirs.number + 1)
        var costs: [Int] = []
        for round in 0..<3 {
            let before = store.writerRoundTrips
            head = try Self.newest(try store.publish(batch: Self.flips(1, on: head.number, tag: "after-\(round)"),
                                                     knownHeads: ["production": head]))
            costs.append(store.writerRoundTrips - before)
        }
        #expect(costs == [2, 1, 1])
        #expect(store.knownHeadMisses == 1)
    }

    /// Another node holds the write lock: the batch on a known head does not wait for it (its one exchange waits for the
    /// server alone, so a stopped server costs `--database-timeout`, not that plus `lock_timeout`) but counts as a
    /// miss, and the batch that reads its heads waits for the lock as every write does.
    @Test func aLockAnotherNodeHoldsIsTriedNotWaitedFor() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let outcome = Mutex<Result<[Result<PublishOutcome, FlagStoreError>], FlagStoreError>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        try other.write { database in
            try database.transaction(.write) {
                Thread.detachNewThread {
                    let result = Result { try store.publish(batch: Self.flips(1, on: mine.number, tag: "next"),
                                                            knownHeads: ["production": mine]) }
                        .mapError(FlagStoreError.wrap)
                    outcome.withLock { $0 = result }
                    finished.signal()
                }
                // The try failed at once (a miss); the batch now waits for this lock.
                #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
            }
        }
        #expect(finished.wait(timeout: .now() + 120) == .success)
        #expect(store.knownHeadMisses == 1)
        let results = try #require(try outcome.withLock { $0 }?.get())
        #expect(results.map { try? $0.get().record.number } == [mine.number + 1])
    }

    /// A head with the right number but other content (a restore put another history there) is not the stored one.
    @Test func theSameNumberWithOtherContentIsAMovedHead() throws {
        let store = try FlagStore.open(location: try PostgresTestCluster.shared().createDatabase())
        defer { store.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let forged = Self.record(mine, number: mine.number, document: document("something else"))
        let results = try store.publish(batch: Self.flips(1, on: mine.number, tag: "next"), knownHeads: ["production": forged])
        #expect(store.knownHeadMisses == 1)
        #expect(results.map { try? $0.get().record.number } == [mine.number + 1])
    }

    /// A request that does not fit the known head (its `If-Match` names another version) is refused exactly as without
    /// one, decided on the stored head, and the attempt on the known head sent nothing (two round trips in all).
    @Test func aRequestThatDoesNotFitTheKnownHeadIsDecidedOnTheStoredOne() throws {
        let store = try FlagStore.open(location: try PostgresTestCluster.shared().createDatabase())
        defer { store.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let before = store.writerRoundTrips
        let results = try store.publish(batch: Self.flips(1, on: mine.number + 5, tag: "stale"), knownHeads: ["production": mine])
        #expect(store.writerRoundTrips - before == 2)
        #expect(store.knownHeadMisses == 0)
        guard case .failure(.versionConflict(_, let expected, let current)) = results.first else {
            Issue.record("expected a conflict, got \(results)")
            return
        }
        #expect(expected == mine.number + 5 && current == mine.number)
    }

    /// SQLite has no round trip to save: known heads change nothing there.
    @Test func sqliteReadsItsHeadsWhateverItIsTold() throws {
        let directory = try TemporaryDirectory()
        let store = try StoreEngine.sqlite.open(directory)
        defer { store.close() }
        let mine = try Self.newest(try store.publish(batch: Self.flips(1, on: 0, tag: "base")))
        let forged = Self.record(mine, number: mine.number + 3, document: mine.document)
        let results = try store.publish(batch: Self.flips(1, on: mine.number, tag: "next"), knownHeads: ["production": forged])
        #expect(results.map { try? $0.get().record.number } == [mine.number + 1])
        #expect(store.writerRoundTrips == 0)
    }
}
