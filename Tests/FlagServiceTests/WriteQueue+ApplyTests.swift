import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing
@testable import FlagService

/// Publishing a change at its time: on the current document, never over a later decision, with the change's
/// author and message, and the version and the `applied` status in one transaction.
@Suite struct WriteQueueApplyTests {
    typealias Outcomes = WriteQueueFixtures.Outcomes

    /// A change of production recorded through the store (what the writer or a crash left behind).
    static func change(_ store: FlagStore, flags: [String: JSONValue], base: Int = 1, needsApproval: Bool = false,
                       applyAt: Int64? = 0) throws -> ChangeRecord {
        try store.createChange(NewChange(environment: "production", kind: .flags, changeSet: ChangeSet(flags: flags), baseVersion: base,
                                         author: "ops-alice", message: "scheduled by alice", applyAtMilliseconds: applyAt,
                                         expiresAtMilliseconds: needsApproval ? ChangeScheduler.wallClock() + 60_000 : nil,
                                         needsApproval: needsApproval, touchedFlags: Array(flags.keys)))
    }

    static func apply(_ queue: WriteQueue, _ id: Int64, index: Int, into outcomes: Outcomes) {
        queue.process([WriteJob(environment: "production", kind: .applyChange(id: id), precondition: .none, author: "scheduler",
                                message: "") { outcomes.set(index, $0) }])
    }

    static func ran(_ outcomes: Outcomes, _ index: Int) -> (ChangeRecord, CommittedVersion?)? {
        outcomes.lock.withLock {
            if case .changeRan(let record, let published)? = outcomes.all[index] { return (record, published) }
            return nil
        }
    }

    static let bannerOff: JSONValue = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true],
                                       "description": "Shows the small 'Für kurze Zeit gratis' card on the start screen and in settings. Turn off when the free introductory period ends."]

    @Test func aDueChangeIsPublishedWithItsAuthorAndMessageKeepingWhatWasPublishedMeanwhile() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff])
        let outcomes = Outcomes()
        // Unrelated: published after the change was made.
        queue.process([WriteQueueChangesTests.job(.flag(key: "subscriptionPriceIncreaseMessagingEnabled", edit: .value(true)), index: 0,
                                                  into: outcomes)])
        Self.apply(queue, change.id, index: 1, into: outcomes)
        let (record, published) = try #require(Self.ran(outcomes, 1))
        #expect(record.status == .applied)
        #expect(record.appliedVersion == 3)
        #expect(published?.record.author == "ops-alice")
        #expect(published?.record.message == "scheduled by alice")
        let current = try #require(snapshots.snapshot("production"))
        #expect(current.version == 3)
        #expect(current.document.flags["showIntroFreeSubscriptionBanner"]?.defaultValue == false)
        #expect(current.document.flags["subscriptionPriceIncreaseMessagingEnabled"]?.defaultValue == true, "kept")
        // Applied once: a second job finds it applied and writes nothing.
        Self.apply(queue, change.id, index: 2, into: outcomes)
        guard case .changeSkipped(let skipped)? = outcomes.lock.withLock({ outcomes.all[2] }) else {
            Issue.record("a second apply must be skipped")
            return
        }
        #expect(skipped.status == .applied)
        #expect(snapshots.snapshot("production")?.version == 3)
        #expect(try store.auditEntries(query: AuditQuery(action: "change.apply")).entries.first?.actor == "scheduler")
    }

    /// Publishes `edit` of `key` as the next version through a second store on the same file, which the queue's
    /// snapshots do not see (as another node's commit on PostgreSQL): the writer finds it only at its commit.
    static func publishBehindTheQueue(_ store: FlagStore, _ key: String, _ edit: FlagEdit) throws {
        let other = try FlagStore.open(location: store.location)
        defer { other.close() }
        let current = try #require(try other.currentVersion(environment: "production"))
        let job = WriteQueueChangesTests.job(.flag(key: key, edit: edit), index: 0, into: Outcomes())
        let document = try WriteQueue.proposedDocument(job, base: try FlagDocument.decode(current.document))
        _ = try other.publish(environment: "production", document: document.canonicalBytes, author: "other node")
    }

    /// A version committed behind the writer's back (another node's): the change is decided again on it under the
    /// write lock and published on top of it in that transaction, keeping it (`FlagStore.applyChange`'s `rebase`).
    @Test func aVersionTheWriterHadNotSeenIsKeptAndTheChangePublishedOnIt() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff])
        try Self.publishBehindTheQueue(store, "subscriptionPriceIncreaseMessagingEnabled", .value(true))
        #expect(snapshots.snapshot("production")?.version == 1, "the queue has not seen version 2")
        let outcomes = Outcomes()
        Self.apply(queue, change.id, index: 0, into: outcomes)
        let (record, published) = try #require(Self.ran(outcomes, 0))
        #expect(record.status == .applied && record.appliedVersion == 3)
        let flags = try #require(published?.document.flags)
        #expect(flags["showIntroFreeSubscriptionBanner"]?.defaultValue == false)
        #expect(flags["subscriptionPriceIncreaseMessagingEnabled"]?.defaultValue == true, "the other node's version is kept")
        #expect(snapshots.snapshot("production")?.version == 3)
        let stored = try FlagDocument.decode(try #require(try store.currentVersion(environment: "production")).document)
        #expect(stored.flags["subscriptionPriceIncreaseMessagingEnabled"]?.defaultValue == true)
    }

    /// The same when the unseen version changed what the change sets: decided under the lock, it is a conflict and
    /// nothing is published (`.declined`), as if the writer had seen the version.
    @Test func aConflictInAVersionTheWriterHadNotSeenIsFoundUnderTheLock() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff])
        let ruled: JSONValue = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true],
                                "rules": [["cohort": "internal", "value": false]]]
        try Self.publishBehindTheQueue(store, "showIntroFreeSubscriptionBanner", .definition(ruled))
        let outcomes = Outcomes()
        Self.apply(queue, change.id, index: 0, into: outcomes)
        let (record, published) = try #require(Self.ran(outcomes, 0))
        #expect(record.status == .conflicted && published == nil)
        #expect(record.conflicts.map(\.pointer) == ["/flags/showIntroFreeSubscriptionBanner"])
        #expect(try store.currentVersion(environment: "production")?.number == 2, "nothing published")
        #expect(snapshots.snapshot("production")?.version == 1)
    }

    @Test func aFlagChangedSinceIsAConflictAndNothingIsPublished() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff])
        let outcomes = Outcomes()
        // Someone decided otherwise: a rule for beta testers.
        let ruled: JSONValue = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true],
                                "rules": [["cohort": "internal", "value": false]]]
        queue.process([WriteQueueChangesTests.job(.flag(key: "showIntroFreeSubscriptionBanner", edit: .definition(ruled)), index: 0,
                                                  into: outcomes)])
        Self.apply(queue, change.id, index: 1, into: outcomes)
        let (record, published) = try #require(Self.ran(outcomes, 1))
        #expect(record.status == .conflicted)
        #expect(record.conflicts.map(\.pointer) == ["/flags/showIntroFreeSubscriptionBanner"])
        #expect(published == nil)
        #expect(snapshots.snapshot("production")?.version == 2)
        // Changed since, but to exactly what the change sets: no conflict, and nothing new to publish.
        let same = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": ruled])
        Self.apply(queue, same.id, index: 2, into: outcomes)
        #expect(Self.ran(outcomes, 2)?.0.status == .applied)
        #expect(Self.ran(outcomes, 2)?.0.appliedVersion == 2)
        #expect(Self.ran(outcomes, 2)?.1 == nil)
    }

    @Test func aResultThatNoLongerValidatesFailsWithItsIssues() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["newFlag": ["type": "boolean", "default": false,
                                                                "rules": [["cohort": "removedMeanwhile", "value": true]]]])
        let outcomes = Outcomes()
        Self.apply(queue, change.id, index: 0, into: outcomes)
        let record = try #require(Self.ran(outcomes, 0)?.0)
        #expect(record.status == .failed)
        #expect(record.reason?.contains("would not validate") == true)
        #expect(record.details?.arrayValue?.first?["path"] == "/flags/newFlag/rules/0/cohort")
        #expect(snapshots.snapshot("production")?.version == 1)
    }

    @Test func aScheduleTouchingAFlagProtectedSinceIsNotPublishedWithoutApproval() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let lockOn: JSONValue = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true]]
        // Scheduled when the flag was not protected (made through the store, as the policy then allowed).
        let unapproved = try Self.change(store, flags: ["premiumFeaturesLocked": lockOn])
        let outcomes = Outcomes()
        Self.apply(queue, unapproved.id, index: 0, into: outcomes)
        let refused = try #require(Self.ran(outcomes, 0)?.0)
        #expect(refused.status == .failed)
        #expect(refused.reason?.contains("premiumFeaturesLocked") == true)
        #expect(snapshots.snapshot("production")?.version == 1)
        // The same change approved by a second person is published.
        let request = try Self.change(store, flags: ["premiumFeaturesLocked": lockOn], needsApproval: true, applyAt: nil)
        #expect(try store.approveChange(id: request.id, actor: "ops-bob").record.status == .approved)
        Self.apply(queue, request.id, index: 1, into: outcomes)
        #expect(Self.ran(outcomes, 1)?.0.status == .applied)
        #expect(snapshots.snapshot("production")?.document.flags["premiumFeaturesLocked"]?.defaultValue == true)
    }

    @Test func aCancelledChangeIsLeftAlone() throws {
        let (queue, snapshots, store, directory) = try WriteQueueChangesTests.fixture()
        defer { store.close(); try? FileManager.default.removeItem(atPath: directory) }
        let change = try Self.change(store, flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff])
        _ = try store.cancelChange(id: change.id, actor: "ops-bob")
        let outcomes = Outcomes()
        Self.apply(queue, change.id, index: 0, into: outcomes)
        guard case .changeSkipped(let record)? = outcomes.lock.withLock({ outcomes.all[0] }) else {
            Issue.record("a cancelled change must be skipped")
            return
        }
        #expect(record.status == .cancelled)
        #expect(snapshots.snapshot("production")?.version == 1)
        Self.apply(queue, 999, index: 1, into: outcomes)
        #expect(outcomes.status(1) == 404)
    }
}
