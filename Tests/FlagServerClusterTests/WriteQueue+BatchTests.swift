import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagService

/// The writer on PostgreSQL, where other nodes write too: it builds on its snapshots without asking the database
/// before each batch, and a request that finds another node's version where it expected its base is taken again
/// on the newest version, never published over it. "Another node" is a second store on the same database that
/// publishes while this writer's snapshots stay as they were (no `ClusterNode` round here: it would install the
/// version within milliseconds, and the writer must be right without it).
///
/// `./scripts/test` runs this suite with the cluster tests, in their process (it starts PostgreSQL).
@Suite struct WriteQueueBatchTests {
    typealias Outcomes = WriteQueueFixtures.Outcomes

    /// A writer over a fresh seeded database, its snapshots, its store, and the database's URI; with `policies`, the
    /// repository's protection policies too (production protects `monetizationEnabled`).
    static func fixture(policies seeded: Bool = false) throws -> (WriteQueue, SnapshotStore, FlagStore, String) {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        let flags = repositoryRoot.appendingPathComponent("flags").path
        try FlagService.seed(store: store, flagsDirectory: flags, logger: ServiceLogger(minimumLevel: .off))
        let policies = PolicyTable()
        if seeded {
            try FlagService.seedPolicies(store: store, policyDirectory: flags + "/policy", logger: ServiceLogger(minimumLevel: .off))
            try policies.load(from: store)
        }
        let snapshots = SnapshotStore()
        try snapshots.load(from: store)
        let queue = WriteQueue(store: store, snapshots: snapshots, metrics: ServiceMetrics(), logger: ServiceLogger(minimumLevel: .off),
                               policies: policies)
        return (queue, snapshots, store, uri)
    }

    /// Another node sets integer flag `key` to `value` on production's newest version; its new version.
    static func publishElsewhere(_ uri: String, _ key: String, _ value: Int64) throws -> VersionRecord {
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let current = try #require(try other.currentVersion(environment: "production"))
        let document = try WriteQueueFixtures.define("integer", .integer(value)).apply(to: FlagDocument.decode(current.document), key: key)
        return try other.publish(environment: "production", document: document.canonicalBytes, author: "node-b",
                                 expectedCurrentVersion: current.number).record
    }

    /// Production's newest document in the database, decoded.
    static func stored(_ store: FlagStore) throws -> FlagDocument {
        try FlagDocument.decode(try #require(try store.currentVersion(environment: "production")).document)
    }

    func flip(_ key: String, _ value: Int64, _ precondition: WriteJob.Precondition = .none, index: Int,
              into outcomes: Outcomes) -> WriteJob {
        WriteJob(environment: "production", kind: .flag(key: key, edit: WriteQueueFixtures.define("integer", .integer(value))),
                 precondition: precondition, author: "t", message: "m\(index)") { outcomes.set(index, $0) }
    }

    @Test func batchesAskTheDatabaseNothingBeyondTheirCommitWhenNothingChanged() throws {
        let (queue, _, store, _) = try Self.fixture()
        defer { store.close() }
        let outcomes = Outcomes()
        for index in 0..<20 { queue.process([flip("counter", Int64(index), index: index, into: outcomes)]) }
        #expect((0..<20).map { outcomes.version($0) } == Array(2...21))
        #expect(queue.node.catchUps.load(ordering: .relaxed) == 0, "no catch-up before a batch when nothing changed")
    }

    @Test func aFlipOnANodeThatHasNotSeenAnotherNodesVersionBuildsOnIt() throws {
        let (queue, snapshots, store, uri) = try Self.fixture()
        defer { store.close() }
        let elsewhere = try Self.publishElsewhere(uri, "fromNodeB", 7)
        #expect(snapshots.snapshot("production")?.version == elsewhere.number - 1, "this node has not seen it")
        let outcomes = Outcomes()
        queue.process([flip("fromNodeA", 1, index: 0, into: outcomes)])
        #expect(outcomes.status(0) == 200 && outcomes.version(0) == elsewhere.number + 1)
        let document = try Self.stored(store)
        #expect(document.flags["fromNodeB"]?.defaultValue == .integer(7) && document.flags["fromNodeA"]?.defaultValue == .integer(1))
        // Rebuilt on the other node's version under the write lock, in the publishing transaction: no catch-up, no
        // hand-back.
        #expect(queue.node.catchUps.load(ordering: .relaxed) == 0)
        #expect(queue.metrics.publishRetries.load(ordering: .relaxed) == 1)
        #expect(snapshots.snapshot("production")?.version == elsewhere.number + 1)
    }

    /// A bare value that changes nothing on this node's stale version, but would change a protected flag on the version
    /// another node published: the rebuild under the write lock declines it (it needs approval there), and the writer
    /// takes it again after catching up, where it becomes a change request. Published by the rebuild, it would have
    /// turned monetization back on with nobody's approval.
    @Test func aRebuildThatWouldNeedApprovalIsTakenAgainAndBecomesAChangeRequest() throws {
        let (queue, _, store, uri) = try Self.fixture(policies: true)
        defer { store.close() }
        let other = try FlagStore.open(location: uri)
        let current = try #require(try other.currentVersion(environment: "production"))
        let off = try FlagEdit.value(false).apply(to: FlagDocument.decode(current.document), key: "monetizationEnabled")
        let elsewhere = try other.publish(environment: "production", document: off.canonicalBytes, author: "node-b",
                                          expectedCurrentVersion: current.number).record
        other.close()
        let outcomes = Outcomes()
        queue.process([WriteJob(environment: "production", kind: .flag(key: "monetizationEnabled", edit: .value(true)),
                                precondition: .none, author: "t", message: "on again") { outcomes.set(0, $0) }])
        #expect(outcomes.status(0) == 202, "\(String(describing: outcomes.all))")
        #expect(try store.currentVersion(environment: "production")?.number == elsewhere.number)
        #expect(try Self.stored(store).flags["monetizationEnabled"]?.defaultValue == .bool(false))
        #expect(queue.node.catchUps.load(ordering: .relaxed) == 1)
    }

    /// Two flips chained in one group commit on a base another node replaced: the first finds the other version's
    /// number, the second the number it expects (its base's + 1), which is the other node's version. Only the
    /// expected content hash refuses it; without it the second would publish over the other node's flip.
    @Test func twoFlipsChainedOnAStaleBaseNeverUndoTheOtherNodesVersion() throws {
        let (queue, _, store, uri) = try Self.fixture()
        defer { store.close() }
        let elsewhere = try Self.publishElsewhere(uri, "fromNodeB", 7)
        let outcomes = Outcomes()
        queue.process([flip("first", 1, index: 0, into: outcomes), flip("second", 2, index: 1, into: outcomes)])
        #expect(outcomes.version(0) == elsewhere.number + 1 && outcomes.version(1) == elsewhere.number + 2,
                "\(String(describing: outcomes.all))")
        let document = try Self.stored(store)
        #expect(document.flags["fromNodeB"]?.defaultValue == .integer(7), "the other node's flip is kept")
        #expect(document.flags["first"]?.defaultValue == .integer(1) && document.flags["second"]?.defaultValue == .integer(2))
        let history = try store.versions(environment: "production").map(\.number)
        #expect(history == Array((1...(elsewhere.number + 2)).reversed()))
    }

    /// Another node published exactly what this node's first job proposes; the second job, chained on the first,
    /// then finds its own expectation (version and hash) met. It must not be published before the first is taken
    /// again: the first, rebuilt on the newest version, would overwrite the second's acknowledged value.
    @Test func aJobChainedOnARefusedOneIsTakenAgainAfterItNeverBeforeIt() throws {
        let (queue, _, store, uri) = try Self.fixture()
        defer { store.close() }
        let elsewhere = try Self.publishElsewhere(uri, "kill", 1)
        let outcomes = Outcomes()
        queue.process([flip("kill", 1, index: 0, into: outcomes), flip("kill", 0, index: 1, into: outcomes)])
        #expect(outcomes.status(0) == 200 && outcomes.status(1) == 200, "\(String(describing: outcomes.all))")
        #expect((outcomes.version(0) ?? 0) < (outcomes.version(1) ?? 0), "the second job is published after the first")
        #expect(try Self.stored(store).flags["kill"]?.defaultValue == .integer(0), "the last acknowledged value stays")
        #expect(outcomes.version(0) == elsewhere.number, "the first, taken again, finds its content already there")
    }

    /// A bare value for a flag another node created a moment ago: this node's snapshot does not have the flag yet, so
    /// the writer catches up before answering `unknown_flag` (two of eighty racing PUTs got it before).
    @Test func aValueForAFlagOnlyAnotherNodeHasCreatedIsAccepted() throws {
        let (queue, _, store, uri) = try Self.fixture()
        defer { store.close() }
        let elsewhere = try Self.publishElsewhere(uri, "createdOnNodeB", 7)
        let outcomes = Outcomes()
        queue.process([WriteJob(environment: "production", kind: .flag(key: "createdOnNodeB", edit: .value(.integer(8))),
                                precondition: .none, author: "t", message: "m0") { outcomes.set(0, $0) },
                       WriteJob(environment: "production", kind: .flag(key: "createdNowhere", edit: .value(.integer(1))),
                                precondition: .none, author: "t", message: "m1") { outcomes.set(1, $0) }])
        #expect(outcomes.status(0) == 200 && outcomes.version(0) == elsewhere.number + 1, "\(String(describing: outcomes.all))")
        #expect(outcomes.status(1) == 422, "a flag no node has is still unknown")
        #expect(try Self.stored(store).flags["createdOnNodeB"]?.defaultValue == .integer(8))
    }

    /// A client that read the newest version from another node sends its ETag to this one, which has not installed
    /// it yet: the writer catches up before refusing.
    @Test func anIfMatchOfAVersionOnlyAnotherNodeHasSeenIsAccepted() throws {
        let (queue, _, store, uri) = try Self.fixture()
        defer { store.close() }
        let elsewhere = try Self.publishElsewhere(uri, "fromNodeB", 7)
        let etag = VersionMetadata.entityTag(version: elsewhere.number, contentHash: elsewhere.contentHash)
        let outcomes = Outcomes()
        queue.process([flip("fromNodeA", 1, .ifMatch([etag]), index: 0, into: outcomes),
                       flip("late", 1, .ifMatch([etag]), index: 1, into: outcomes)])
        #expect(outcomes.status(0) == 200 && outcomes.version(0) == elsewhere.number + 1)
        #expect(outcomes.status(1) == 412, "the second's tag is stale now, as on one node")
    }
}
