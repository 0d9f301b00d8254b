import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The writer decides protection in queue order: a write touching a protected flag becomes a change request
/// against exactly the version it would have changed; everything around it publishes as before.
@Suite struct WriteQueueChangesTests {
    typealias Outcomes = WriteQueueFixtures.Outcomes

    /// A writer over production and staging with the repository's production policy (premiumFeaturesLocked
    /// and monetizationEnabled protected).
    static func fixture() throws -> (WriteQueue, SnapshotStore, FlagStore, String) {
        let directory = try makeTemporaryDirectory()
        let store = try FlagStore.open(location: directory + "/w.sqlite")
        let flags = repositoryRoot.appendingPathComponent("flags").path
        try FlagService.seed(store: store, flagsDirectory: flags, logger: ServiceLogger(minimumLevel: .off))
        try FlagService.seedPolicies(store: store, policyDirectory: flags + "/policy", logger: ServiceLogger(minimumLevel: .off))
        let snapshots = SnapshotStore()
        try snapshots.load(from: store)
        let policies = PolicyTable()
        try policies.load(from: store)
        let queue = WriteQueue(store: store, snapshots: snapshots, metrics: ServiceMetrics(), logger: ServiceLogger(minimumLevel: .off),
                               policies: policies)
        return (queue, snapshots, store, directory)
    }

    static func job(_ kind: WriteJob.Kind, _ precondition: WriteJob.Precondition = .none, author: String = "alice",
                    index: Int, into outcomes: Outcomes) -> WriteJob {
        WriteJob(environment: "production", kind: kind, precondition: precondition, author: author, message: "m\(index)",
                 client: "192.0.2.7") { outcomes.set(index, $0) }
    }

    static func recorded(_ outcomes: Outcomes, _ index: Int) -> RecordedChange? {
        outcomes.lock.withLock {
            if case .recorded(let recorded)? = outcomes.all[index] { return recorded }
            return nil
        }
    }

    @Test func aProtectedFlipInABatchBecomesARequestAgainstTheVersionBeforeIt() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        let before = ChangeScheduler.wallClock()
        queue.process([
            Self.job(.flag(key: "showIntroFreeSubscriptionBanner", edit: .value(false)), index: 0, into: outcomes),
            Self.job(.flag(key: "premiumFeaturesLocked", edit: .value(true)), index: 1, into: outcomes),
            Self.job(.flag(key: "subscriptionPriceIncreaseMessagingEnabled", edit: .value(true)), index: 2, into: outcomes),
        ])
        #expect(outcomes.version(0) == 2)
        let request = try #require(Self.recorded(outcomes, 1)?.record)
        #expect(outcomes.status(1) == 202)
        #expect(outcomes.version(2) == 3, "the write after the request publishes as before")
        #expect(request.status == .pending)
        #expect(request.baseVersion == 2, "made against the version job 0 published, in queue order")
        #expect(request.kind == .flags)
        #expect(request.author == "alice" && request.message == "m1")
        #expect(request.protectedFlags == ["premiumFeaturesLocked"])
        #expect(request.changeSet.flagKeys == ["premiumFeaturesLocked"])
        let expires = try #require(request.expiresAtMilliseconds)
        #expect(expires >= before + 72 * 3_600_000 && expires <= ChangeScheduler.wallClock() + 72 * 3_600_000)
        #expect(snapshots.snapshot("production")?.document.flags["premiumFeaturesLocked"]?.defaultValue == false, "nothing published")
        #expect(try store.change(id: request.id) == request)
        let audit = try store.auditEntries(query: AuditQuery(action: "change.request"))
        #expect(audit.entries.first?.client == "192.0.2.7")
        #expect(audit.entries.first?.target == String(request.id))
    }

    @Test func preconditionsAndNoOpsAreDecidedBeforeProtection() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        let current = try #require(snapshots.snapshot("production"))
        let next = try FlagEdit.value(false).apply(to: current.document, key: "showIntroFreeSubscriptionBanner")
        let nextTag = VersionMetadata.entityTag(version: 2, contentHash: next.contentHash)
        queue.process([
            Self.job(.flag(key: "premiumFeaturesLocked", edit: .value(true)), .ifMatch(["\"7-0000000000000000\""]), index: 0, into: outcomes),
            Self.job(.document(current.document), index: 1, into: outcomes),
            Self.job(.document(next), .ifMatch([current.etag]), index: 2, into: outcomes),
            // If-Match of the version pending in this batch: checked against it, then recorded against it.
            Self.job(.flag(key: "premiumFeaturesLocked", edit: .value(true)), .ifMatch([nextTag]), index: 3, into: outcomes),
        ])
        #expect(outcomes.status(0) == 412)
        #expect(outcomes.status(1) == 200, "the same content: unchanged, whatever the policy")
        #expect(outcomes.version(2) == 2)
        #expect(Self.recorded(outcomes, 3)?.record.baseVersion == 2)
        #expect(try store.changes(query: .requests(environment: "production")).count == 1)
    }

    @Test func documentsAndRollbacksTouchingAProtectedFlagBecomeRequestsToo() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        let current = try #require(snapshots.snapshot("production")).document
        queue.process([Self.job(.flag(key: "subscriptionPriceIncreaseMessagingEnabled", edit: .value(true)), index: 0, into: outcomes)])
        let locked = try FlagEdit.value(true).apply(to: current, key: "premiumFeaturesLocked")
        queue.process([
            Self.job(.document(locked), index: 1, into: outcomes),
            // Version 1 has monetization messaging off; going back is unprotected...
            Self.job(.rollback(number: 1), index: 2, into: outcomes),
        ])
        #expect(Self.recorded(outcomes, 1)?.record.kind == .document)
        #expect(Self.recorded(outcomes, 1)?.record.protectedFlags == ["premiumFeaturesLocked"])
        #expect(outcomes.version(2) == 3)
        // ...but a rollback across a change of the master switch is not.
        queue.process([Self.job(.document(try FlagEdit.value(false).apply(to: current, key: "subscriptionPriceIncreaseMessagingEnabled")),
                                index: 3, into: outcomes)])
        let approved = try store.approveChange(id: try #require(Self.recorded(outcomes, 1)?.record.id), actor: "bob")
        queue.process([Self.job(.applyChange(id: approved.record.id), author: "bob", index: 4, into: outcomes)])
        queue.process([Self.job(.rollback(number: 3), index: 5, into: outcomes)])
        let rollback = try #require(Self.recorded(outcomes, 5)?.record)
        #expect(rollback.kind == .rollback)
        #expect(rollback.protectedFlags == ["premiumFeaturesLocked"])
        #expect(rollback.baseVersion == snapshots.snapshot("production")?.version)
    }

    @Test func schedulesAreRecordedAgainstTheCurrentVersion() throws {
        let (queue, snapshots, store, directory) = try Self.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let outcomes = Outcomes()
        let at = ChangeScheduler.wallClock() + 3_600_000
        let etag = try #require(snapshots.snapshot("production")?.etag)
        queue.process([
            Self.job(.schedule(.flags(["showIntroFreeSubscriptionBanner": .value(false)]), applyAt: at), .ifMatch([etag]), index: 0, into: outcomes),
            Self.job(.schedule(.flags(["premiumFeaturesLocked": .value(true), "showIntroFreeSubscriptionBanner": .value(false)]), applyAt: at),
                     index: 1, into: outcomes),
            Self.job(.schedule(.flags(["showIntroFreeSubscriptionBanner": .value(true)]), applyAt: at), index: 2, into: outcomes),
            Self.job(.schedule(.flags(["showIntroFreeSubscriptionBanner": .value("no")]), applyAt: at), index: 3, into: outcomes),
            Self.job(.schedule(.flags(["bannner": .value(false)]), applyAt: at), index: 4, into: outcomes),
            Self.job(.schedule(.flags(["showIntroFreeSubscriptionBanner": .value(false)]), applyAt: at), .ifMatch(["\"9-0000000000000000\""]),
                     index: 5, into: outcomes),
        ])
        let schedule = try #require(Self.recorded(outcomes, 0))
        #expect(schedule.record.status == .scheduled)
        #expect(schedule.record.applyAtMilliseconds == at)
        #expect(schedule.record.expiresAtMilliseconds == nil)
        #expect(schedule.record.baseVersion == 1)
        #expect(schedule.proposed.flags["showIntroFreeSubscriptionBanner"]?.defaultValue == false)
        let protected = try #require(Self.recorded(outcomes, 1)?.record)
        #expect(protected.status == .pending && protected.applyAtMilliseconds == at, "approval first, then its time")
        #expect(protected.changeSet.flagKeys == ["premiumFeaturesLocked", "showIntroFreeSubscriptionBanner"])
        #expect(outcomes.status(2) == 409, "already so: empty_change")
        #expect(outcomes.status(3) == 422)
        #expect(outcomes.status(4) == 422)
        #expect(outcomes.status(5) == 412)
        #expect(snapshots.snapshot("production")?.version == 1, "a schedule publishes nothing")
        #expect(try store.changes(query: .schedules(environment: "production")).map(\.id) == [schedule.record.id, protected.id])
    }
}
