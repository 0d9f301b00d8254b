import FlagKit
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import FlagStore

/// Publishing, numbering, conflicts, history, restart.
@Suite struct FlagStoreVersionsTests {
    @Test(arguments: StoreEngine.allCases) func versionsAreNumberedFromOnePerEnvironment(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let before = Date()
        let first = try store.publish(environment: "production", document: document("a"), author: "alice", message: "first")
        let second = try store.publish(environment: "production", document: document("b"), author: "bob", message: "second")
        let staging = try store.publish(environment: "staging", document: document("a"), author: "carol")
        guard case .published(let one) = first, case .published(let two) = second, case .published(let s1) = staging else {
            Issue.record("expected three publishes")
            return
        }
        #expect(one.number == 1 && two.number == 2 && s1.number == 1)
        #expect(one.contentHash == SHA256.hexDigest(document("a")))
        #expect(one.author == "alice" && one.message == "first" && one.rolledBackFrom == nil)
        #expect(one.createdAt.timeIntervalSince(before) > -1 && one.createdAt.timeIntervalSinceNow < 1)
        #expect(try store.version(environment: "production", number: 1) == one)
        #expect(try store.currentVersion(environment: "production") == two)
        #expect(try store.latestVersions() == ["production": two, "staging": s1])
        let audit = try store.auditEntries()
        #expect(audit.map(\.action) == ["publish", "publish", "publish"])
        #expect(audit.first?.actor == "carol" && audit.first?.environment == "staging")
    }

    @Test(arguments: StoreEngine.allCases) func identicalContentPublishesNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let first = try store.publish(environment: "production", document: document("a"), author: "alice")
        let again = try store.publish(environment: "production", document: document("a"), author: "bob",
                                      expectedCurrentVersion: 1)
        #expect(again == .unchanged(first.record))
        #expect(try store.versions(environment: "production").count == 1)
        #expect(try store.auditEntries().count == 1)
    }

    @Test(arguments: StoreEngine.allCases) func staleExpectationIsAConflictAndWritesNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 3, current: 0)) {
            try store.publish(environment: "production", document: document("a"), author: "a", expectedCurrentVersion: 3)
        }
        _ = try store.publish(environment: "production", document: document("a"), author: "a", expectedCurrentVersion: 0)
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 0, current: 1)) {
            try store.publish(environment: "production", document: document("b"), author: "a", expectedCurrentVersion: 0)
        }
        // A conflict wins over "unchanged": the caller's view is stale either way.
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 0, current: 1)) {
            try store.publish(environment: "production", document: document("a"), author: "a", expectedCurrentVersion: 0)
        }
        #expect(try store.versions(environment: "production").map(\.number) == [1])
    }

    @Test(arguments: StoreEngine.allCases) func racingWritersOnTwoConnectionsExactlyOneWins(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let path = try engine.location(directory)
        let stores = [try FlagStore.open(location: path), try FlagStore.open(location: path)]
        for round in 0..<20 {
            let results = concurrently(2) { index in
                attempt {
                    try stores[index].publish(environment: "production", document: document("\(round)-\(index)"),
                                              author: "writer\(index)", expectedCurrentVersion: round)
                }
            }
            let winners = results.compactMap { try? $0.get() }
            let conflict = Result<PublishOutcome, FlagStoreError>.failure(
                .versionConflict(environment: "production", expected: round, current: round + 1))
            let conflicts = results.filter { $0 == conflict }
            #expect(winners.count == 1 && conflicts.count == 1, "round \(round): \(results)")
        }
        #expect(try stores[0].versions(environment: "production", limit: 100).map(\.number) == Array((1...20).reversed()))
    }

    @Test func busyWriterFailsAfterTimeoutWithBusy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path, busyTimeout: .milliseconds(100))
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let error = try #require(throws: FlagStoreError.self) {
            try store.publish(environment: "production", document: document("a"), author: "a")
        }
        guard case .busy(let cause) = error else {
            Issue.record("expected busy, got \(error)")
            return
        }
        #expect(cause.isBusy)
        try holder.execute("ROLLBACK")
        #expect(try store.publish(environment: "production", document: document("a"), author: "a").record.number == 1)
    }

    @Test func busyWriterWaitsForTheLockWithinTheTimeout() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path, busyTimeout: .seconds(30))
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let done = Atomic<Bool>(false)
        let result = Mutex<Result<PublishOutcome, any Error>?>(nil)
        let thread = Thread {
            let outcome = Result { try store.publish(environment: "production", document: document("a"), author: "a") }
            result.withLock { $0 = outcome }
            done.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.2)
        // While the lock is held the publish cannot have finished: it is waiting, not failing.
        let finishedWhileLocked = done.load(ordering: .sequentiallyConsistent)
        #expect(!finishedWhileLocked)
        try holder.execute("COMMIT")
        #expect(poll { done.load(ordering: .sequentiallyConsistent) })
        #expect(try result.withLock { try $0?.get() }?.record.number == 1)
    }

    @Test(arguments: StoreEngine.allCases) func historyPagesNewestFirst(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        for index in 1...25 { _ = try store.publish(environment: "production", document: document("\(index)"), author: "a") }
        let page1 = try store.versions(environment: "production", limit: 10)
        #expect(page1.map(\.number) == Array((16...25).reversed()))
        let page2 = try store.versions(environment: "production", limit: 10, before: page1.last?.number)
        #expect(page2.map(\.number) == Array((6...15).reversed()))
        let page3 = try store.versions(environment: "production", limit: 10, before: page2.last?.number)
        #expect(page3.map(\.number) == Array((1...5).reversed()))
        #expect(try store.versions(environment: "production", limit: 10, before: 1).isEmpty)
        #expect(try store.versions(environment: "staging").isEmpty)
        for bad in [0, -1, 1001] {
            #expect(throws: FlagStoreError.self) { try store.versions(environment: "production", limit: bad) }
        }
    }

    @Test(arguments: StoreEngine.allCases) func missingVersionIsNotFound(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(throws: FlagStoreError.versionNotFound(environment: "production", number: 1)) {
            try store.version(environment: "production", number: 1)
        }
    }

    @Test(arguments: StoreEngine.allCases) func badPublishInputIsRefusedAndWritesNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(throws: FlagStoreError.invalidArgument(name: "document", reason: "must not be empty")) {
            try store.publish(environment: "production", document: [], author: "a")
        }
        #expect(throws: FlagStoreError.invalidArgument(name: "author", reason: "must not be empty")) {
            try store.publish(environment: "production", document: document("a"), author: " ")
        }
        #expect(throws: FlagStoreError.self) {
            try store.publish(environment: "production", document: document("a"), author: "a",
                              message: String(repeating: "m", count: 10_001))
        }
        #expect(try store.currentVersion(environment: "production") == nil)
        #expect(try store.auditEntries().isEmpty)
    }

    /// With `allowedOn`, a rollback whose expected version another writer overtook is shown the version current under
    /// the write lock: true publishes it there, false keeps the conflict (nothing written). Not called while the
    /// expected version holds.
    @Test(arguments: StoreEngine.allCases) func aRollbackOvertakenIsPublishedOnTheNewestWhenAllowedThere(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        for tag in ["v1", "v2", "v3"] { _ = try store.publish(environment: "production", document: document(tag), author: "a") }
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 2, current: 3)) {
            try store.rollback(environment: "production", to: 1, author: "ops", expectedCurrentVersion: 2) { newest in
                #expect(newest?.number == 3 && newest?.document == document("v3"))
                return false
            }
        }
        #expect(try store.currentVersion(environment: "production")?.number == 3)
        let outcome = try store.rollback(environment: "production", to: 1, author: "ops", expectedCurrentVersion: 2) { _ in true }
        #expect(outcome.record.number == 4 && outcome.record.rolledBackFrom == 1 && outcome.record.document == document("v1"))
        let direct = try store.rollback(environment: "production", to: 2, author: "ops", expectedCurrentVersion: 4) { _ in
            Issue.record("allowedOn called although the expected version is current")
            return false
        }
        #expect(direct.record.number == 5)
    }

    @Test(arguments: StoreEngine.allCases) func rollbackRepublishesOldContentAsANewVersion(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        _ = try store.publish(environment: "production", document: document("b"), author: "a")
        let outcome = try store.rollback(environment: "production", to: 1, author: "ops", message: "undo",
                                         expectedCurrentVersion: 2)
        guard case .published(let record) = outcome else {
            Issue.record("expected a publish, got \(outcome)")
            return
        }
        #expect(record.number == 3 && record.rolledBackFrom == 1 && record.document == document("a"))
        #expect(try store.rollback(environment: "production", to: 1, author: "ops") == .unchanged(record))
        #expect(throws: FlagStoreError.versionNotFound(environment: "production", number: 9)) {
            try store.rollback(environment: "production", to: 9, author: "ops")
        }
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 2, current: 3)) {
            try store.rollback(environment: "production", to: 2, author: "ops", expectedCurrentVersion: 2)
        }
        #expect(try store.version(environment: "production", number: 3).rolledBackFrom == 1)
    }

    @Test func restartKeepsEveryVersion() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        var expected: [VersionRecord] = []
        do {
            let store = try FlagStore.open(location: path)
            for index in 1...30 {
                let environment = index.isMultiple(of: 3) ? "staging" : "production"
                expected.append(try store.publish(environment: environment, document: document("\(index)"),
                                                  author: "a", message: "m\(index)").record)
            }
            store.close()
        }
        let reopened = try FlagStore.open(location: path)
        let stored = try reopened.versions(environment: "production", limit: 1000)
            + reopened.versions(environment: "staging", limit: 1000)
        #expect(Set(stored.map { "\($0.environment)/\($0.number)/\($0.contentHash)/\($0.message)" })
            == Set(expected.map { "\($0.environment)/\($0.number)/\($0.contentHash)/\($0.message)" }))
        #expect(try reopened.latestVersions()["production"]?.number == 20)
        #expect(try reopened.latestVersions()["staging"]?.number == 10)
        #expect(try reopened.integrityCheck() == ["ok"])
    }

    @Test(arguments: StoreEngine.allCases) func batchPublishesInOrderInOneCommitAndRefusesPerRequest(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        let results = try store.publish(batch: [
            PublishRequest(environment: "production", document: document("b"), author: "w1", expectedCurrentVersion: 1),
            PublishRequest(environment: "production", document: document("c"), author: "w2", expectedCurrentVersion: 1),
            PublishRequest(environment: "nowhere", document: document("d"), author: "w3"),
            PublishRequest(environment: "staging", document: [], author: "w4"),
            PublishRequest(environment: "production", document: document("b"), author: "w5"),
            PublishRequest(environment: "staging", document: document("e"), author: "w6", expectedCurrentVersion: 0),
        ])
        #expect(results.count == 6)
        #expect((try? results[0].get())?.record.number == 2)
        #expect(results[1] == .failure(.versionConflict(environment: "production", expected: 1, current: 2)))
        #expect(results[2] == .failure(.unknownEnvironment("nowhere", known: ["production", "staging"])))
        #expect(results[3] == .failure(.invalidArgument(name: "document", reason: "must not be empty")))
        #expect(results[4] == .success(.unchanged(try store.version(environment: "production", number: 2))))
        #expect((try? results[5].get())?.record.number == 1)
        #expect(try store.versions(environment: "production").map(\.author) == ["w1", "a"])
        // The unchanged request's line is in the same commit (no second commit of its own).
        #expect(try store.auditEntries().map(\.actor) == ["w6", "w5", "w1", "a"])
        #expect(try store.auditEntries().first { $0.actor == "w5" }?.detail == "unchanged: version 2 already has this content")
        #expect(try store.publish(batch: []).isEmpty)
    }

    /// Another writer published exactly what the first request proposes: the second, chained on it, finds its own
    /// expectation (number and hash) met, yet is refused with the first, so that it is never published before the
    /// first is taken again. Unchained, the same request is published (requests are otherwise independent).
    @Test(arguments: StoreEngine.allCases) func aRequestChainedOnARefusedOneIsRefusedToo(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let base = try store.publish(environment: "production", document: document("base"), author: "a").record
        _ = try store.publish(environment: "production", document: document("mine"), author: "b")
        let mine = FlagStore.contentHash(document("mine"))
        func batch(chained: Bool) throws -> [Result<PublishOutcome, FlagStoreError>] {
            try store.publish(batch: [
                PublishRequest(environment: "production", document: document("mine"), author: "w", expectedCurrentVersion: 1,
                               expectedCurrentHash: base.contentHash),
                PublishRequest(environment: "production", document: document("mine, then more"), author: "w",
                               expectedCurrentVersion: 2, expectedCurrentHash: mine, chainedOnPrevious: chained),
            ])
        }
        let refused = try batch(chained: true)
        #expect(refused[0] == .failure(.versionConflict(environment: "production", expected: 1, current: 2)))
        #expect(refused[1] == .failure(.versionConflict(environment: "production", expected: 2, current: 2)))
        #expect(try store.versions(environment: "production").map(\.author) == ["b", "a"])
        let independent = try batch(chained: false)
        #expect((try? independent[1].get())?.record.number == 3)
    }

    /// `rebase`: a request that finds another writer's version is built again on it under the write lock (with the
    /// version it is given, hash verified) and published there; one declined stays refused, and a request chained on
    /// it is refused without asking, while one chained on a rebuilt request is rebuilt in its turn.
    @Test(arguments: StoreEngine.allCases) func aConflictingRequestIsRebuiltOnTheNewestVersionUnderTheLock(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let base = try store.publish(environment: "production", document: document("base"), author: "a").record
        _ = try store.publish(environment: "staging", document: document("staging"), author: "a")
        let other = try store.publish(environment: "production", document: document("other node"), author: "b").record
        var asked: [(Int, Int?, String?)] = []
        let results = try store.publish(batch: [
            PublishRequest(environment: "production", document: document("mine"), author: "w", expectedCurrentVersion: 1,
                           expectedCurrentHash: base.contentHash, target: "flag1"),
            PublishRequest(environment: "production", document: document("mine, then more"), author: "w",
                           expectedCurrentVersion: 2, expectedCurrentHash: FlagStore.contentHash(document("mine")),
                           chainedOnPrevious: true),
            PublishRequest(environment: "staging", document: document("declined"), author: "w", expectedCurrentVersion: 0),
            PublishRequest(environment: "staging", document: document("declined, then more"), author: "w",
                           expectedCurrentVersion: 1, chainedOnPrevious: true),
        ], rebase: { index, newest in
            asked.append((index, newest?.number, newest?.contentHash))
            return index == 2 ? nil : document("request \(index) on version \(newest?.number ?? 0)")
        })
        // The first on the other writer's version 2, the second on the first's version 3; the third declined, the
        // fourth refused with it without being asked.
        #expect(asked.map(\.0) == [0, 1, 2])
        #expect(asked.map(\.1) == [2, 3, 1])
        #expect(asked[0].2 == other.contentHash)
        #expect((try? results[0].get())?.record.number == 3)
        #expect((try? results[1].get())?.record.number == 4)
        #expect(results[2] == .failure(.versionConflict(environment: "staging", expected: 0, current: 1)))
        #expect(results[3] == .failure(.versionConflict(environment: "staging", expected: 1, current: 1)))
        let production = try store.versions(environment: "production")
        #expect(production.map(\.document) == [document("request 1 on version 3"), document("request 0 on version 2"),
                                               document("other node"), document("base")])
        #expect(try store.versions(environment: "staging").count == 1)
        // The rebuilt publish keeps its audit line (target and all).
        #expect(try store.auditEntries().contains { $0.actor == "w" && $0.target == "flag1" && $0.version == 3 })
        // Without `rebase` the same conflict is the answer.
        let plain = try store.publish(batch: [PublishRequest(environment: "production", document: document("late"), author: "w",
                                                             expectedCurrentVersion: 1)])
        #expect(plain[0] == .failure(.versionConflict(environment: "production", expected: 1, current: 4)))
    }

    /// A writer chaining two requests on a base another writer replaced: the first finds another version number, the
    /// second the number it expects but another writer's content there; both are refused, nothing is overwritten.
    @Test(arguments: StoreEngine.allCases) func anExpectedHashRefusesAnotherWritersVersionUnderTheExpectedNumber(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let base = try store.publish(environment: "production", document: document("base"), author: "a").record
        let other = try store.publish(environment: "production", document: document("other node"), author: "b").record
        let mine = FlagStore.contentHash(document("mine"))
        let results = try store.publish(batch: [
            PublishRequest(environment: "production", document: document("mine"), author: "w", expectedCurrentVersion: 1,
                           expectedCurrentHash: base.contentHash),
            PublishRequest(environment: "production", document: document("mine, then more"), author: "w",
                           expectedCurrentVersion: 2, expectedCurrentHash: mine),
            PublishRequest(environment: "production", document: document("on the other"), author: "w",
                           expectedCurrentVersion: 2, expectedCurrentHash: other.contentHash),
        ])
        #expect(results[0] == .failure(.versionConflict(environment: "production", expected: 1, current: 2)))
        #expect(results[1] == .failure(.versionConflict(environment: "production", expected: 2, current: 2)))
        #expect((try? results[2].get())?.record.number == 3)
        #expect(try store.versions(environment: "production").map(\.author) == ["w", "b", "a"])
        #expect(try store.version(environment: "production", number: 2).document == document("other node"))
    }

    @Test(arguments: StoreEngine.allCases) func aPublishAuditLineNamesItsTargetAndClient(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(batch: [
            PublishRequest(environment: "production", document: document("a"), author: "ops", target: "premiumFeaturesLocked",
                           client: "192.0.2.7"),
            PublishRequest(environment: "production", document: document("b"), author: "ops"),
        ])
        _ = try store.rollback(environment: "production", to: 1, author: "ops", client: "192.0.2.8")
        let lines = try store.auditEntries()
        #expect(lines.map(\.version) == [3, 2, 1])
        #expect(lines.map(\.target) == [nil, nil, "premiumFeaturesLocked"], "a flip names its flag; a document and a rollback none")
        #expect(lines.map(\.client) == ["192.0.2.8", nil, "192.0.2.7"])
        #expect(lines.allSatisfy { $0.action == "publish" && $0.outcome == .ok })
    }

    @Test func busyBatchPublishesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path, busyTimeout: .milliseconds(50))
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        #expect(throws: FlagStoreError.self) {
            try store.publish(batch: [PublishRequest(environment: "production", document: document("a"), author: "a")])
        }
        try holder.execute("ROLLBACK")
        #expect(try store.currentVersion(environment: "production") == nil)
    }

    @Test func latestVersionsDoesNotScanHistory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let database = try Database(path: path, mode: .readOnly)
        let plan = try database.query("""
            EXPLAIN QUERY PLAN SELECT e.name, v.number FROM environments e
            JOIN versions v ON v.id = (SELECT id FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1)
            """) { $0.text(3) }
        #expect(!plan.contains { $0.hasPrefix("SCAN v") || $0.hasPrefix("SCAN versions") }, "\(plan)")
    }

    @Test func damagedBytesAreFoundAndNeverRepublished() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        _ = try store.publish(environment: "production", document: document("b"), author: "a")
        #expect(try store.damagedVersions().isEmpty)
        try tamper(path, "UPDATE versions SET document = ? WHERE number = 1", [.blob(document("evil"))])
        let damaged = try store.version(environment: "production", number: 1)
        #expect(throws: FlagStoreError.self) { try FlagStore.verify(damaged) }
        #expect(try store.damagedVersions().map(\.description).first?.hasPrefix("version 1 of production is damaged") == true)
        let refused = attempt { try store.rollback(environment: "production", to: 1, author: "a") }
        guard case .failure(.damagedVersion(let environment, let number, let stored, let actual)) = refused else {
            Issue.record("expected damagedVersion, got \(refused)")
            return
        }
        #expect(environment == "production" && number == 1)
        #expect(stored == SHA256.hexDigest(document("a")) && actual == SHA256.hexDigest(document("evil")))
        #expect(try store.currentVersion(environment: "production")?.number == 2)
        try FlagStore.verify(try store.version(environment: "production", number: 2))
    }
}
