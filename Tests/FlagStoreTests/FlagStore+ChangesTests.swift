import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Recording changes and reading them back: one, listings with filters and orders, due and expired ones.
@Suite struct FlagStoreChangesTests {
    @Test(arguments: StoreEngine.allCases) func aScheduleIsRecordedWithItsAuditLineAndReadsBack(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        var new = scheduledChange(applyAt: 1_803_855_600_000)
        new.client = "192.0.2.7"
        let change = try store.createChange(new)
        #expect(change.status == .scheduled && change.environment == "production" && change.kind == .flags)
        #expect(change.changeSet == new.changeSet && change.applyAtMilliseconds == 1_803_855_600_000)
        #expect(change.author == "alice" && change.message == "the intro period is over" && !change.needsApproval)
        #expect(change.touchedFlags == ["banner"] && change.protectedFlags.isEmpty && change.conflicts.isEmpty)
        #expect(change.appliedVersion == nil && change.decidedBy == nil && change.details == nil)
        #expect(try store.change(id: change.id) == change)
        let audit = try #require(try store.auditEntries().first)
        #expect(audit.action == "change.schedule" && audit.actor == "alice" && audit.target == String(change.id))
        #expect(audit.environment == "production" && audit.client == "192.0.2.7")
        #expect(audit.detail == "flags base 0: /flags/banner at 2027-02-28T23:00:00.000Z")
    }

    @Test(arguments: StoreEngine.allCases) func aRequestStartsPendingWithChangeRequestInTheAudit(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let change = try store.createChange(requestedChange(expiresAt: 9_000))
        #expect(change.status == .pending && change.needsApproval && change.isRequest)
        #expect(change.expiresAtMilliseconds == 9_000 && change.protectedFlags == ["premiumFeaturesLocked"])
        #expect(try store.auditEntries().first?.action == "change.request")
    }

    @Test(arguments: StoreEngine.allCases) func refusalsWriteNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        var empty = scheduledChange()
        empty.changeSet = ChangeSet()
        var noTime = scheduledChange()
        noTime.applyAtMilliseconds = nil
        var negative = scheduledChange()
        negative.baseVersion = -1
        var noAuthor = scheduledChange()
        noAuthor.author = " "
        let cases: [(NewChange, FlagStoreError)] = [
            (empty, .invalidArgument(name: "changeSet", reason: "changes nothing")),
            (noTime, .invalidArgument(name: "applyAt", reason: "a change that needs no approval waits for a time")),
            (negative, .invalidArgument(name: "baseVersion", reason: "must not be negative, got -1")),
            (noAuthor, .invalidArgument(name: "author", reason: "must not be empty")),
            (scheduledChange(environment: "prod"), .unknownEnvironment("prod", known: ["production", "staging"])),
        ]
        for (change, error) in cases {
            #expect(throws: error) { try store.createChange(change) }
        }
        #expect(try store.auditEntries().isEmpty)
        #expect(throws: FlagStoreError.changeNotFound(id: 1)) { try store.change(id: 1) }
    }

    @Test(arguments: StoreEngine.allCases) func schedulesListByApplyAtRequestsNewestFirstWithFiltersAndPages(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let late = try store.createChange(scheduledChange("a", applyAt: 9_000))
        let early = try store.createChange(scheduledChange("b", applyAt: 3_000))
        let request = try store.createChange(requestedChange("c"))
        let timedRequest = try store.createChange(requestedChange("d", applyAt: 6_000))
        let staging = try store.createChange(scheduledChange("e", environment: "staging"))
        _ = try store.cancelChange(id: late.id, actor: "bob")
        let schedules = try store.changes(query: .schedules(environment: "production"))
        #expect(schedules.map(\.id) == [early.id, timedRequest.id, late.id])
        let scheduledOnly = try store.changes(query: .schedules(environment: "production", statuses: [.scheduled]))
        #expect(scheduledOnly.map(\.id) == [early.id])
        let requests = try store.changes(query: .requests(environment: "production"))
        #expect(requests.map(\.id) == [timedRequest.id, request.id])
        let firstPage = try store.changes(query: .requests(environment: "production", limit: 1))
        let secondPage = try store.changes(query: .requests(environment: "production", limit: 1, before: firstPage.last?.id))
        #expect(firstPage.map(\.id) == [timedRequest.id] && secondPage.map(\.id) == [request.id])
        let everything = try store.changes(query: ChangeQuery(environment: "production"))
        #expect(everything.map(\.id) == [timedRequest.id, request.id, early.id, late.id])
        #expect(try store.changes(query: ChangeQuery(environment: "staging")).map(\.id) == [staging.id])
        #expect(try store.changes(query: ChangeQuery(environment: "production", statuses: [])).isEmpty)
        #expect(throws: FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got 0")) {
            try store.changes(query: ChangeQuery(environment: "production", limit: 0))
        }
        #expect(throws: FlagStoreError.unknownEnvironment("x", known: ["production", "staging"])) {
            try store.changes(query: ChangeQuery(environment: "x"))
        }
    }

    @Test(arguments: StoreEngine.allCases) func dueChangesAreScheduledOnesWhoseTimeCameAndEveryApprovedOne(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let now: Int64 = 10_000
        let past = try store.createChange(scheduledChange("a", applyAt: now - 10))
        let exactlyNow = try store.createChange(scheduledChange("b", environment: "staging", applyAt: now))
        let future = try store.createChange(scheduledChange("c", applyAt: now + 1))
        let request = try store.createChange(requestedChange("d"))
        let pending = try store.createChange(requestedChange("e"))
        #expect(try store.nextDueTime() == now - 10)
        _ = try store.approveChange(id: request.id, actor: "bob", now: 500)
        #expect(try store.change(id: request.id).status == .approved)
        let due = try store.dueChanges(now: now)
        // The approval (decided at 500) was due first, then by applyAt.
        #expect(due.map(\.id) == [request.id, past.id, exactlyNow.id])
        #expect(!due.contains { $0.id == future.id || $0.id == pending.id })
        #expect(try store.nextDueTime() == 500)
        _ = try store.applyChange(id: request.id, document: document("r"), expectedCurrentVersion: 0)
        #expect(try store.nextDueTime() == now - 10)
        for id in [past.id, exactlyNow.id, future.id] { _ = try store.cancelChange(id: id, actor: "bob") }
        #expect(try store.nextDueTime() == nil)
        #expect(try store.dueChanges(now: .max).isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func expiredRequestsArePendingOnesPastTheirTime(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let soon = try store.createChange(requestedChange("a", expiresAt: 1_000))
        let later = try store.createChange(requestedChange("b", expiresAt: 2_000))
        _ = try store.createChange(requestedChange("c"))
        #expect(try store.nextExpiry() == 1_000)
        #expect(try store.expiredRequests(now: 999).isEmpty)
        #expect(try store.expiredRequests(now: 2_000).map(\.id) == [soon.id, later.id])
        _ = try store.expireChange(id: soon.id)
        #expect(try store.expiredRequests(now: 2_000).map(\.id) == [later.id])
        #expect(try store.nextExpiry() == 2_000)
    }
}
