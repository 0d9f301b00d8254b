import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Status transitions as compare-and-set with their audit lines, and applying a change in one transaction.
@Suite struct FlagStoreChangeTransitionsTests {
    @Test(arguments: StoreEngine.allCases) func approvalSchedulesAFutureChangeAndApprovesADueOne(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let timed = try store.createChange(requestedChange("a", applyAt: 5_000))
        let immediate = try store.createChange(requestedChange("b"))
        let scheduled = try store.approveChange(id: timed.id, actor: "bob", message: "ok", now: 4_999)
        #expect(scheduled.happened && scheduled.record.status == .scheduled)
        #expect(scheduled.record.approvedBy == "bob" && scheduled.record.decidedBy == "bob")
        #expect(scheduled.record.decidedAtMilliseconds == 4_999 && scheduled.record.decisionMessage == "ok")
        let approved = try store.approveChange(id: immediate.id, actor: "bob", now: 4_999)
        #expect(approved.record.status == .approved && approved.record.decisionMessage == nil)
        let audit = try store.auditEntries(query: AuditQuery(action: "change.approve")).entries
        #expect(audit.map(\.detail) == ["approved for publication", "scheduled for 1970-01-01T00:00:05.000Z"])
        #expect(audit.allSatisfy { $0.actor == "bob" && $0.environment == "production" })
    }

    /// Each transition from every status it must not leave: refused, nothing written, the status reported.
    @Test(arguments: StoreEngine.allCases) func transitionsFromWrongStatusesAreRefused(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let scheduled = try store.createChange(scheduledChange())
        let rejected = try store.createChange(requestedChange())
        _ = try store.rejectChange(id: rejected.id, actor: "bob", message: "not now")
        let auditBefore = try store.auditEntries(limit: 1000).count
        let refusals: [(String, () throws -> ChangeTransition)] = [
            ("approve scheduled", { try store.approveChange(id: scheduled.id, actor: "bob") }),
            ("reject scheduled", { try store.rejectChange(id: scheduled.id, actor: "bob", message: "no") }),
            ("expire scheduled", { try store.expireChange(id: scheduled.id) }),
            ("stale scheduled", { try store.markChangeStale(id: scheduled.id, conflicts: []) }),
            ("approve rejected", { try store.approveChange(id: rejected.id, actor: "carol") }),
            ("cancel rejected", { try store.cancelChange(id: rejected.id, actor: "carol") }),
            ("conflict rejected", { try store.markChangeConflicted(id: rejected.id, conflicts: []) }),
            ("fail rejected", { try store.markChangeFailed(id: rejected.id, reason: "x") }),
        ]
        for (name, transition) in refusals {
            let result = try transition()
            #expect(!result.happened, "\(name)")
            #expect(result.record.status == (name.hasSuffix("scheduled") ? .scheduled : .rejected), "\(name)")
        }
        #expect(try store.auditEntries(limit: 1000).count == auditBefore)
        #expect(try store.change(id: rejected.id).decidedBy == "bob")
        #expect(throws: FlagStoreError.changeNotFound(id: 99)) { try store.cancelChange(id: 99, actor: "bob") }
        #expect(throws: FlagStoreError.invalidArgument(name: "message", reason: "must not be empty")) {
            try store.rejectChange(id: scheduled.id, actor: "bob", message: "")
        }
    }

    @Test(arguments: StoreEngine.allCases) func outcomesRecordConflictsReasonsAndDetails(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let stale = try store.createChange(requestedChange("a"))
        let conflicted = try store.createChange(scheduledChange("b"))
        let failed = try store.createChange(scheduledChange("c"))
        let items = [ChangeSet.Item(kind: .flag, name: "b"), ChangeSet.Item(kind: .cohort, name: "internal")]
        #expect(try store.markChangeStale(id: stale.id, conflicts: [items[0]]).record.status == .stale)
        let conflict = try store.markChangeConflicted(id: conflicted.id, conflicts: items).record
        #expect(conflict.status == .conflicted && conflict.conflicts == items.sorted())
        let details: JSONValue = ["issues": [["path": "/flags/c/rules/0/cohort", "message": "unknown cohort \"beta\""]]]
        let failure = try store.markChangeFailed(id: failed.id, reason: "the merged document is invalid", details: details).record
        #expect(failure.status == .failed && failure.reason == "the merged document is invalid" && failure.details == details)
        let audit = try store.auditEntries()
        #expect(audit.map(\.action) == ["change.fail", "change.conflict", "change.stale", "change.schedule", "change.schedule",
                                        "change.request"])
        #expect(audit[0].outcome == .failed && audit[1].outcome == .refused && audit[2].outcome == .ok)
        #expect(audit[1].detail == "/cohorts/internal /flags/b")
        #expect(failure.jsonValue.objectValue?["conflicts"] == [] && conflict.jsonValue.objectValue?["conflicts"]
            == ["/cohorts/internal", "/flags/b"])
    }

    @Test(arguments: StoreEngine.allCases) func applyingPublishesAndMarksTheChangeInOneStepAndNeverTwice(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("v1"), author: "seed")
        let change = try store.createChange(scheduledChange(applyAt: 1, author: "alice", message: "intro over"))
        let result = try store.applyChange(id: change.id, document: document("v2"), expectedCurrentVersion: 1)
        guard case .applied(let applied, .published(let version)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(version.number == 2 && version.author == "alice" && version.message == "intro over")
        #expect(applied.status == .applied && applied.appliedVersion == 2 && applied.appliedAtMilliseconds != nil)
        let audit = try store.auditEntries()
        #expect(audit.map(\.action) == ["change.apply", "publish", "change.schedule", "publish"])
        #expect(audit[0].actor == "scheduler" && audit[0].version == 2 && audit[1].actor == "alice" && audit[1].version == 2)
        // A second call, and every transition, finds it final: nothing is written.
        let again = try store.applyChange(id: change.id, document: document("v3"), expectedCurrentVersion: 2)
        #expect(again == .notApplicable(applied))
        #expect(try store.cancelChange(id: change.id, actor: "bob") == .refused(applied))
        #expect(try store.currentVersion(environment: "production")?.number == 2)
        #expect(try store.auditEntries().count == 4)
    }

    @Test(arguments: StoreEngine.allCases) func aStaleExpectedVersionWritesNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("v1"), author: "seed")
        let change = try store.createChange(scheduledChange(applyAt: 1))
        #expect(throws: FlagStoreError.versionConflict(environment: "production", expected: 0, current: 1)) {
            try store.applyChange(id: change.id, document: document("v2"), expectedCurrentVersion: 0)
        }
        #expect(try store.change(id: change.id).status == .scheduled)
        #expect(try store.currentVersion(environment: "production")?.number == 1)
        #expect(try store.auditEntries().map(\.action) == ["change.schedule", "publish"])
    }

    /// With `rebase`, a stale expected version hands the writer the version current under the write lock: what it
    /// returns is published in that transaction (no other writer can come first again); nil writes nothing
    /// (`.declined`). While the expected version holds, `rebase` is not called.
    @Test(arguments: StoreEngine.allCases) func aStaleExpectedVersionIsRebasedUnderTheLockOrDeclined(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("v1"), author: "seed")
        let change = try store.createChange(scheduledChange(applyAt: 1))
        _ = try store.publish(environment: "production", document: document("v2"), author: "other node")

        var seen: [VersionRecord?] = []
        let declined = try store.applyChange(id: change.id, document: document("merged on v1"), expectedCurrentVersion: 1) { newest in
            seen.append(newest)
            return nil
        }
        #expect(declined == .declined(try store.change(id: change.id)))
        #expect(seen.map { $0?.number } == [2] && seen.first??.document == document("v2"))
        #expect(try store.change(id: change.id).status == .scheduled)
        #expect(try store.currentVersion(environment: "production")?.number == 2)

        let result = try store.applyChange(id: change.id, document: document("merged on v1"), expectedCurrentVersion: 1) { newest in
            #expect(newest?.number == 2)
            return document("merged on v2")
        }
        guard case .applied(let applied, .published(let version)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(version.number == 3 && version.document == document("merged on v2") && applied.appliedVersion == 3)
        #expect(version.contentHash == SHA256.hexDigest(document("merged on v2")))

        let current = try store.createChange(scheduledChange("b", applyAt: 1))
        let direct = try store.applyChange(id: current.id, document: document("merged on v3"), expectedCurrentVersion: 3) { _ in
            Issue.record("rebase called although the expected version is current")
            return nil
        }
        #expect(direct.record.appliedVersion == 4)
    }

    @Test(arguments: StoreEngine.allCases) func applyingWhatIsAlreadyCurrentMarksTheCurrentVersion(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.publish(environment: "production", document: document("same"), author: "seed")
        let change = try store.createChange(scheduledChange(applyAt: 1))
        let result = try store.applyChange(id: change.id, document: document("same"), expectedCurrentVersion: 1)
        guard case .applied(let applied, .unchanged(let current)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(current.number == 1 && applied.appliedVersion == 1)
        #expect(try store.auditEntries().first?.detail == "unchanged as version 1")
    }

    /// Racing approvals (and an expiry) of one request: exactly one wins, the others see the status it set.
    @Test(arguments: StoreEngine.allCases) func racingDecisionsHaveExactlyOneWinner(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let change = try store.createChange(requestedChange())
        let results = concurrently(8) { index in
            attempt {
                index == 0 ? try store.expireChange(id: change.id)
                    : try store.approveChange(id: change.id, actor: "approver\(index)")
            }
        }
        let outcomes = try results.map { try $0.get() }
        #expect(outcomes.filter(\.happened).count == 1)
        let final = try store.change(id: change.id)
        #expect(outcomes.allSatisfy { $0.record.status == final.status })
        #expect(try store.auditEntries(query: AuditQuery(environment: "production")).entries.count == 2)
    }

    @Test(arguments: StoreEngine.allCases) func applyingRacesAreWonOnce(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let change = try store.createChange(scheduledChange(applyAt: 1))
        let results = concurrently(6) { index in
            attempt { try store.applyChange(id: change.id, document: document("w\(index)"), expectedCurrentVersion: 0) }
        }
        let applied = results.filter { if case .success(.applied) = $0 { true } else { false } }
        #expect(applied.count == 1)
        // The losers find it applied before they publish anything: no conflict, no second version.
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(try store.currentVersion(environment: "production")?.number == 1)
    }
}
