import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import TestSupport
import Testing
@testable import FlagService

/// The writer's batch semantics, driven directly (no timing): jobs in one group commit behave exactly
/// as if they had run one by one.
@Suite struct WriteQueueTests {
    typealias Outcomes = WriteQueueFixtures.Outcomes

    static func fixture() throws -> (WriteQueue, SnapshotStore, FlagStore, String) {
        let directory = try makeTemporaryDirectory()
        let store = try FlagStore.open(location: directory + "/w.sqlite")
        try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path,
                             logger: ServiceLogger(minimumLevel: .off))
        let snapshots = SnapshotStore()
        try snapshots.load(from: store)
        let queue = WriteQueue(store: store, snapshots: snapshots, metrics: ServiceMetrics(), logger: ServiceLogger(minimumLevel: .off))
        return (queue, snapshots, store, directory)
    }

    func job(_ kind: WriteJob.Kind, _ precondition: WriteJob.Precondition = .none, environment: String = "production",
             index: Int, into outcomes: Outcomes) -> WriteJob {
        WriteJob(environment: environment, kind: kind, precondition: precondition, author: "t", message: "m\(index)") {
            outcomes.set(index, $0)
        }
    }

    @Test func oneBatchAppliesJobsInOrderAgainstEachOthersResults() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let etag = try #require(snapshots.snapshot("production")?.etag)
        let outcomes = Outcomes()
        queue.process([
            job(.flag(key: "a", edit: WriteQueueFixtures.define("integer", 1)), .ifMatch([etag]), index: 0, into: outcomes),
            job(.flag(key: "b", edit: WriteQueueFixtures.define("integer", 2)), .ifMatch([etag]), index: 1, into: outcomes),   // stale now: 412
            job(.flag(key: "b", edit: WriteQueueFixtures.define("integer", 2)), index: 2, into: outcomes),                     // builds on job 0
            job(.flag(key: "b", edit: .value(2)), index: 3, into: outcomes),                                     // same content: unchanged
            job(.flag(key: "c", edit: WriteQueueFixtures.define("integer", 3)), .ifMatch(["*"]), index: 4, into: outcomes),
            job(.flag(key: "x", edit: WriteQueueFixtures.define("boolean", true)), environment: "staging", index: 5, into: outcomes),
            job(.flag(key: "y", edit: .value(true)), environment: "nope", index: 6, into: outcomes),
        ])
        #expect(outcomes.status(0) == 200 && outcomes.version(0) == 2)
        #expect(outcomes.status(1) == 412)
        #expect(outcomes.version(2) == 3)
        #expect(outcomes.version(3) == 3)
        #expect(outcomes.version(4) == 4)
        #expect(outcomes.version(5) == 2)
        #expect(outcomes.status(6) == 404)
        let current = try #require(snapshots.snapshot("production"))
        #expect(current.version == 4)
        #expect(current.document.flags["a"]?.defaultValue == 1)
        #expect(current.document.flags["b"]?.defaultValue == 2)
        #expect(current.document.flags["c"]?.defaultValue == 3)
        #expect(try store.currentVersion(environment: "production")?.contentHash == current.record.contentHash)
    }

    @Test func aPendingVersionsTagIsKnownToLaterJobsInTheBatch() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        let base = try #require(snapshots.snapshot("production"))
        let next = try WriteQueueFixtures.define("integer", 9).apply(to: base.document, key: "n")
        let nextTag = VersionMetadata.entityTag(version: 2, contentHash: next.contentHash)
        queue.process([
            job(.document(next), .ifMatch([base.etag]), index: 0, into: outcomes),
            job(.flag(key: "n", edit: .value(10)), .ifMatch([nextTag]), index: 1, into: outcomes),
        ])
        #expect(outcomes.version(0) == 2)
        #expect(outcomes.version(1) == 3)
    }

    @Test func rollbackInABatchSeesTheEarlierJobs() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        queue.process([
            job(.flag(key: "monetizationEnabled", edit: .value(false)), index: 0, into: outcomes),
            job(.rollback(number: 1), index: 1, into: outcomes),
            job(.flag(key: "z", edit: WriteQueueFixtures.define("string", "after")), index: 2, into: outcomes),
            job(.rollback(number: 99), index: 3, into: outcomes),
        ])
        #expect(outcomes.version(0) == 2)
        #expect(outcomes.version(1) == 3)
        #expect(outcomes.version(2) == 4)
        #expect(outcomes.status(3) == 404)
        #expect(snapshots.snapshot("production")?.record.rolledBackFrom == nil)
        #expect(try store.version(environment: "production", number: 3).rolledBackFrom == 1)
    }

    @Test func aStoppedQueueAnswers503() throws {
        let (queue, _, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        queue.start()
        queue.stop()
        let outcomes = Outcomes()
        queue.submit(job(.flag(key: "a", edit: .value(1)), index: 0, into: outcomes))
        #expect(outcomes.status(0) == 503)
    }
}
