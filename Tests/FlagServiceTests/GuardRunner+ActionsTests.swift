import Foundation
import FlagServiceTestSupport
import FlagKit
import FlagStore
import TestSupport
import Testing
@testable import FlagService

/// A guard's rollback of a protected flag (the paid day's lock): published at once when the second person approved the
/// change with the guard on it, a change request like any rollback when the guard came after the approval.
@Suite struct GuardRunnerActionsTests {
    static let rollbackRule = #"{"metric": "refunds", "action": "rollback"}"#

    /// Proposes the protected lock (a change request), adds a guard before or after ops-bob approves it, posts a refund
    /// spike through the receiver two hours later and runs the job past it; returns the guard's record.
    static func trippedLock(guardBeforeApproval: Bool) async throws -> (GuardRecord, GuardHarness) {
        let harness = try await GuardHarness()
        let server = harness.server
        // Delivered nowhere (the address is refused), but logged: what the approvers' webhooks are told.
        let hook = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "https://hooks.example/symi", "events": ["request.created"]}"#)
        guard hook.status == 201 else { throw TestFailure("webhook: \(hook.status) \(hook.text)") }
        try harness.storeNormalRefunds()
        try await server.protectProduction()
        let proposed = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        guard proposed.status == 202, let request = try proposed.json()["change"]?["id"]?.integerValue else {
            throw TestFailure("the lock is not a change request: \(proposed.status) \(proposed.text)")
        }
        let add = { try await harness.addGuard(#"{"change": \#(request), "rule": \#(Self.rollbackRule)}"#) }
        var added = guardBeforeApproval ? try await add() : nil
        let bob = try server.token("ops-bob")
        let approved = try await server.change("POST", "/v1/changes/\(request)/approve", json: "{}", token: bob)
        guard approved.status == 200 else { throw TestFailure("approve: \(approved.status) \(approved.text)") }
        if added == nil { added = try await add() }
        guard let created = added, created.status == 201, let id = try created.json()["guard"]?["id"]?.integerValue else {
            throw TestFailure("guard: \(String(describing: added?.status)) \(added?.text ?? "")")
        }
        harness.server.service.runGuards()
        try await harness.postRefundSpike(count: 25, hoursAfter: 2)
        harness.pass(hours: 3, minutes: 30)
        return (try server.store.guardRecord(id: id), harness)
    }

    @Test func aGuardTheApproverSawRollsTheProtectedLockBackAtOnce() async throws {
        let (record, harness) = try await Self.trippedLock(guardBeforeApproval: true)
        defer { harness.stop() }
        #expect(record.status == .tripped, "\(String(describing: record.lastDecision))")
        #expect(record.action?["outcome"] == "done" && record.action?["approvedBy"] == "ops-bob", "\(String(describing: record.action))")
        let version = try #require(record.action?["version"]?.integerValue)
        let rollback = try harness.server.store.version(environment: "production", number: Int(version))
        #expect(rollback.author == "guard")
        #expect(rollback.contentHash == (try harness.server.store.version(environment: "production", number: 2)).contentHash,
                "the lock is off again")
        #expect(try harness.server.store.changes(query: .requests(environment: "production", statuses: [.pending], limit: 10)).isEmpty)
    }

    @Test func aGuardAddedAfterTheApprovalProposesItsRollback() async throws {
        let (record, harness) = try await Self.trippedLock(guardBeforeApproval: false)
        defer { harness.stop() }
        #expect(record.status == .tripped, "\(String(describing: record.lastDecision))")
        #expect(record.action?["outcome"] == "failed" && record.action?["approvedBy"] == .null, "\(String(describing: record.action))")
        let pending = try harness.server.store.changes(query: .requests(environment: "production", statuses: [.pending], limit: 10))
        #expect(pending.count == 1 && pending.first?.author == "guard" && record.action?["changes"]?.arrayValue?.first?.integerValue == pending.first?.id)
        #expect(try harness.server.store.newestVersions()["production"]?.number == 3, "nothing published")
        // The guard's request is announced as any request is: the lock's own request, then the rollback's.
        let webhook = try #require(try await harness.server.asAdmin("GET", "/v1/webhooks").json()["webhooks"]?.arrayValue?.first?["id"]?.integerValue)
        var created: [JSONValue] = []
        let deadline = Date().addingTimeInterval(10)
        while created.count < 2, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            created = try await harness.server.asAdmin("GET", "/v1/webhooks/\(webhook)/deliveries").json()["deliveries"]?.arrayValue ?? []
        }
        #expect(created.compactMap { $0["type"]?.stringValue } == ["request.created", "request.created"], "\(created)")
    }
}
