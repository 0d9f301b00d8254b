import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Guards in the store, on both engines: recorded with their audit line, read back field by field, moved only by
/// compare-and-set transitions, held audited once per watched hour, and the schedules they hold skipped by the due
/// changes until released.
@Suite struct FlagStoreGuardsTests {
    static let rule: JSONValue = ["metric": "refunds", "measure": "perHour", "baseline": "previousWeek", "minimumCount": 5,
                                  "windowHours": 72, "action": "rollback", "alpha": 0.01, "minimumRelativeChange": 0.5]

    @Test(arguments: StoreEngine.allCases) func aGuardOnAVersionIsRecordedWatchingWithItsAuditLine(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        let second = try store.publish(environment: "production", document: document("b"), author: "alice")
        let published = second.record.createdAtMilliseconds
        let created = try store.createGuard(NewGuard(environment: "production", version: 2,
                                                     publishedAtMilliseconds: published, product: "symi.plus.monthly",
                                                     rule: Self.rule, createdBy: "carol", client: "127.0.0.1"))
        #expect(created.status == .watching && created.version == 2 && created.previousVersion == 1)
        #expect(created.changeID == nil && created.product == "symi.plus.monthly" && created.appStoreEnvironment == "Production")
        #expect(created.rule == Self.rule && created.createdBy == "carol" && created.publishedAtMilliseconds == published)
        #expect(created.windowEndsAtMilliseconds == published + 72 * 3_600_000)
        #expect(try store.guardRecord(id: created.id) == created)
        let json = try #require(created.jsonValue.objectValue)
        #expect(json.count == 19 && json["status"] == "watching" && json["change"] == .null && json["lastDecision"] == .null)
        #expect(json["windowEndsAt"] == .string(RFC3339.string(milliseconds: published + 72 * 3_600_000)))
        let line = try #require(try store.auditEntries(query: AuditQuery(action: "guard.add")).entries.first)
        #expect(line.actor == "carol" && line.target == String(created.id) && line.version == 2 && line.client == "127.0.0.1")

        #expect(throws: FlagStoreError.versionNotFound(environment: "production", number: 9)) {
            try store.createGuard(NewGuard(environment: "production", version: 9, publishedAtMilliseconds: 1, rule: Self.rule,
                                           createdBy: "carol"))
        }
        #expect(throws: FlagStoreError.changeNotFound(id: 77)) {
            try store.createGuard(NewGuard(environment: "production", changeID: 77, rule: Self.rule, createdBy: "carol"))
        }
        #expect(throws: FlagStoreError.self) { try store.createGuard(NewGuard(environment: "production", rule: Self.rule, createdBy: "c")) }
        #expect(throws: FlagStoreError.guardNotFound(id: 99)) { try store.guardRecord(id: 99) }
        #expect(try store.guards(environment: "staging").isEmpty)
        #expect(try store.guards(statuses: [.watching]).map(\.id) == [created.id])
    }

    @Test(arguments: StoreEngine.allCases) func aGuardOnAChangeWaitsThenWatchesOrIsCancelled(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        for tag in ["a", "b", "c"] { _ = try store.publish(environment: "production", document: document(tag), author: "alice") }
        let change = try store.createChange(scheduledChange())
        let other = try store.createChange(scheduledChange("other"))
        let waiting = try store.createGuard(NewGuard(environment: "production", changeID: change.id, rule: Self.rule, createdBy: "carol"))
        let second = try store.createGuard(NewGuard(environment: "production", changeID: other.id, rule: Self.rule, createdBy: "carol"))
        #expect(waiting.status == .waiting && waiting.version == nil && waiting.jsonValue.objectValue?["windowEndsAt"] == .null)
        let watching = try store.startWatching(id: waiting.id, version: 3, publishedAt: 10_000)
        #expect(watching.happened && watching.record.status == .watching && watching.record.version == 3)
        #expect(!(try store.startWatching(id: waiting.id, version: 2, publishedAt: 1)).happened)
        #expect(try store.cancelGuard(id: second.id).record.status == .cancelled)
        #expect(!(try store.cancelGuard(id: waiting.id)).happened)
        #expect(try store.guards(environment: "production").map(\.id) == [second.id, waiting.id], "newest first")
    }

    @Test(arguments: StoreEngine.allCases) func heldDecisionsAreAuditedOncePerWatchedHour(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        let created = try store.createGuard(NewGuard(environment: "production", version: 1, publishedAtMilliseconds: 0,
                                                     rule: Self.rule, createdBy: "carol"))
        func held(_ hours: Int, at: Int64) throws -> Bool {
            let decision: JSONValue = ["verdict": "held", "hours": .integer(Int64(hours))]
            return try store.recordGuardDecision(
                id: created.id, decision: decision, at: at, auditHours: hours,
                audit: AuditRecord(actor: "guard", action: "guard.held", environment: "production", target: String(created.id),
                                   detail: decision.canonicalString))
        }
        #expect(try held(1, at: 3_700_000))
        #expect(try !held(1, at: 3_760_000), "the same hour again")
        #expect(try held(2, at: 7_300_000))
        #expect(try store.guardRecord(id: created.id).lastEvaluatedAtMilliseconds == 7_300_000)
        #expect(try store.guardRecord(id: created.id).lastAuditedHours == 2)
        #expect(try store.guardDecisions(id: created.id).map(\.detail) == [#"{"hours":2,"verdict":"held"}"#, #"{"hours":1,"verdict":"held"}"#])

        let tripped = try store.tripGuard(id: created.id, decision: ["verdict": "tripped"], at: 8_000_000,
                                          audit: AuditRecord(actor: "guard", action: "guard.tripped", environment: "production",
                                                             target: String(created.id)))
        #expect(tripped.happened && tripped.record.trippedAtMilliseconds == 8_000_000 && tripped.record.status == .tripped)
        #expect(try !held(3, at: 9_000_000), "a tripped guard keeps its decision")
        #expect(!(try store.removeGuard(id: created.id, actor: "carol")).happened, "only waiting or watching guards are removed")
        let acted = try store.recordGuardAction(id: created.id, action: ["kind": "notify", "outcome": "done"],
                                                audit: AuditRecord(actor: "guard", action: "guard.acted", target: String(created.id)))
        #expect(acted.record.action == ["kind": "notify", "outcome": "done"])
        let overridden = try store.overrideGuard(id: created.id, actor: "dave", message: "a store feature", at: 9_000_000)
        #expect(overridden.happened && overridden.record.overriddenBy == "dave" && overridden.record.overrideMessage == "a store feature")
        #expect(!(try store.overrideGuard(id: created.id, actor: "erin", message: "again", at: 9_000_001)).happened)
        #expect(try store.auditEntries(query: AuditQuery(action: "guard.override")).entries.map(\.actor) == ["dave"])
        #expect(try store.guardDecisions(id: created.id).map(\.action) == ["guard.acted", "guard.tripped", "guard.held", "guard.held"])
    }

    @Test(arguments: StoreEngine.allCases) func heldSchedulesAreNotDueUntilReleased(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        let due = try store.createChange(scheduledChange("a", applyAt: 5_000))
        let later = try store.createChange(scheduledChange("b", applyAt: 9_000))
        let staging = try store.createChange(scheduledChange("c", environment: "staging", applyAt: 5_000))
        let created = try store.createGuard(NewGuard(environment: "production", version: 1, publishedAtMilliseconds: 0,
                                                     rule: Self.rule, createdBy: "carol"))
        #expect(try store.holdScheduledChanges(environment: "production", guardID: created.id) == [due.id, later.id])
        #expect(try store.change(id: due.id).heldByGuard == created.id)
        #expect(try store.change(id: due.id).jsonValue.objectValue?["heldByGuard"] == .integer(created.id))
        #expect(try store.dueChanges(now: 10_000).map(\.id) == [staging.id])
        #expect(try store.nextDueTime() == 5_000, "staging's")
        #expect(try store.holdScheduledChanges(environment: "production", guardID: created.id) == [], "held once")
        // Handed to the writer before the hold, a held schedule is still not published.
        let refused = try store.applyChange(id: due.id, document: document("due"), expectedCurrentVersion: 1)
        guard case .notApplicable(let record) = refused else { Issue.record("\(refused)"); return }
        #expect(try record.status == .scheduled && (store.newestVersions()["production"]?.number) == 1)
        let removed = try store.removeGuard(id: created.id, actor: "carol")
        #expect(removed.happened && removed.record.status == .removed)
        #expect(try store.change(id: due.id).heldByGuard == nil)
        #expect(try store.dueChanges(now: 10_000).map(\.id) == [due.id, staging.id, later.id])
        #expect(try store.auditEntries(query: AuditQuery(action: "guard.remove")).entries.map(\.actor) == ["carol"])
    }

    @Test(arguments: StoreEngine.allCases) func closingNeedsAWatchingGuard(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        let created = try store.createGuard(NewGuard(environment: "production", version: 1, publishedAtMilliseconds: 0,
                                                     rule: Self.rule, createdBy: "carol"))
        let audit = AuditRecord(actor: "guard", action: "guard.closed", environment: "production", target: String(created.id))
        let closed = try store.closeGuard(id: created.id, decision: nil, at: 300_000_000, audit: audit)
        #expect(closed.happened && closed.record.status == .closed && closed.record.lastEvaluatedAtMilliseconds == 300_000_000)
        #expect(!(try store.closeGuard(id: created.id, decision: nil, at: 300_000_001, audit: audit)).happened)
        #expect(try store.auditEntries(query: AuditQuery(action: "guard.closed")).entries.count == 1)
    }
}
