import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing
@testable import FlagService

/// The writer's audit lines: bounded in memory, committed with the next group commit, or on their own after
/// gathering briefly while no write comes; unchanged writes recorded too.
@Suite struct WriteQueueAuditTests {
    static func refusal(_ index: Int, reason: String = "forbidden: nope") -> AuditRecord {
        AuditRecord(actor: "viewer", action: "publish", environment: "production", target: "k\(index)", outcome: .refused,
                    status: 403, reason: reason, client: "192.0.2.1", atMilliseconds: 1_000 + Int64(index))
    }

    @Test func linesRideInTheNextGroupCommitBeforeItsPublishes() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = WriteQueueFixtures.Outcomes()
        let flip = WriteJob(environment: "production", kind: .flag(key: "monetizationEnabled", edit: .value(false)), precondition: .none,
                            author: "ops", message: "m", client: "192.0.2.9") { outcomes.set(0, $0) }
        let commits = queue.metrics.batches.load(ordering: .relaxed)
        queue.process([flip], audit: [Self.refusal(1), Self.refusal(2)])
        #expect(queue.metrics.batches.load(ordering: .relaxed) == commits + 1, "one commit for the publish and both lines")
        let lines = try store.auditEntries(limit: 3)
        #expect(lines.map(\.action) == ["publish", "publish", "publish"])
        #expect(lines.map(\.outcome) == [.ok, .refused, .refused], "the refusals first, in order, then the publish")
        #expect(lines[0].target == "monetizationEnabled" && lines[0].client == "192.0.2.9" && lines[0].version == 2)
        #expect(lines[1].target == "k2" && lines[1].atMilliseconds == 1_002, "the time of the refusal, not of the commit")
    }

    @Test func linesWithoutAPublishAreWrittenOnTheirOwn() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = WriteQueueFixtures.Outcomes()
        // A batch that publishes nothing (its only job is refused) still writes what it carried.
        let stale = WriteJob(environment: "production", kind: .flag(key: "a", edit: .value(1)), precondition: .ifMatch([#""9-x""#]),
                             author: "ops", message: "m") { outcomes.set(0, $0) }
        queue.process([stale], audit: [Self.refusal(1)])
        #expect(outcomes.status(0) == 412)
        #expect(try store.auditEntries(limit: 1).first?.target == "k1")
    }

    @Test func theIdleWriterGathersABurstIntoOneTransaction() async throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        queue.start()
        defer { queue.stop() }
        for index in 0..<50 { queue.recordAudit(Self.refusal(index)) }
        let lines = try await ServiceRoutesTests.pollAudit(store, count: 50) { $0.outcome == .refused }
        #expect(lines.map(\.target) == (0..<50).reversed().map { "k\($0)" })
        #expect(queue.metrics.auditQueued.load(ordering: .relaxed) == 50)
    }

    @Test func aFullQueueDropsAndCountsLinesAndCutsLongOnes() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        // The thread is not started: nothing takes the lines.
        let long = String(repeating: "x", count: 50_000)
        for index in 0..<(WriteQueue.auditCapacity + 3) { queue.recordAudit(Self.refusal(index, reason: long)) }
        let waiting = queue.queue.withLock { $0.audit }
        #expect(waiting.count == WriteQueue.auditCapacity)
        #expect(waiting.allSatisfy { $0.reason?.utf8.count == 2000 }, "cut to the stored bound before waiting in memory")
        #expect(queue.queue.withLock { $0.auditDropped } == 3)
        #expect(queue.metrics.auditDropped.load(ordering: .relaxed) == 3)
        #expect(queue.metrics.render(snapshots: [:], server: nil).contains("flagserver_audit_lines_total{outcome=\"dropped\"} 3"))
    }

    @Test func aWriteThatChangesNothingIsRecordedInItsOwnCommit() throws {
        let (queue, snapshots, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = WriteQueueFixtures.Outcomes()
        let current = try #require(snapshots.snapshot("production")?.document.flags["monetizationEnabled"]?.defaultValue)
        let linesBefore = try store.auditEntries(limit: 1000).count
        queue.process([WriteJob(environment: "production", kind: .flag(key: "monetizationEnabled", edit: .value(current)),
                                precondition: .none, author: "ops", message: "m", client: "192.0.2.5") { outcomes.set(0, $0) }])
        #expect(outcomes.version(0) == 1)
        // Written by the group commit that answered the write (no second commit of its own), nothing left waiting.
        #expect(queue.queue.withLock { $0.audit }.isEmpty)
        let lines = try store.auditEntries(limit: 1000)
        #expect(lines.count == linesBefore + 1)
        let line = try #require(lines.first)
        #expect(line.detail == "unchanged: version 1 already has this content")
        #expect(line.target == "monetizationEnabled" && line.client == "192.0.2.5" && line.outcome == .ok && line.actor == "ops")
    }

    @Test func linesAfterStopAreDroppedNotLost() throws {
        let (queue, _, store, directory) = try WriteQueueTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        queue.start()
        queue.recordAudit(Self.refusal(1))
        queue.stop()
        #expect(try store.auditEntries(limit: 1).first?.target == "k1", "stop writes what is waiting")
        queue.recordAudit(Self.refusal(2))
        #expect(queue.metrics.auditDropped.load(ordering: .relaxed) == 1, "after stop nothing would write it: counted")
    }
}
