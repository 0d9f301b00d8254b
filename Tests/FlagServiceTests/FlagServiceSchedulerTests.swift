import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// What the scheduler does: catching up at start, expiring requests, marking stale ones after a publish.
@Suite struct FlagServiceSchedulerTests {
    static let bannerOff: JSONValue = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
    static let messagingOn: JSONValue = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true]]

    @Test func whatFellDueWhileDownAndWhatWasApprovedIsPublishedBeforeTheServiceServes() throws {
        try withTemporaryStore { store in
            try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path,
                                 logger: ServiceLogger(minimumLevel: .off))
            let due = ChangeScheduler.wallClock() - 3_600_000
            let missed = try store.createChange(NewChange(
                environment: "production", kind: .flags, changeSet: ChangeSet(flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff]),
                baseVersion: 1, author: "ops-alice", message: "intro over", applyAtMilliseconds: due, needsApproval: false,
                touchedFlags: ["showIntroFreeSubscriptionBanner"]))
            let request = try store.createChange(NewChange(
                environment: "production", kind: .flags,
                changeSet: ChangeSet(flags: ["subscriptionPriceIncreaseMessagingEnabled": Self.messagingOn]), baseVersion: 1,
                author: "ops-alice", message: "price notice", expiresAtMilliseconds: ChangeScheduler.wallClock() + 3_600_000,
                needsApproval: true, touchedFlags: ["subscriptionPriceIncreaseMessagingEnabled"]))
            // Approved, then the server died before publishing it.
            #expect(try store.approveChange(id: request.id, actor: "ops-bob").record.status == .approved)
            let later = try store.createChange(NewChange(
                environment: "staging", kind: .flags, changeSet: ChangeSet(flags: ["showIntroFreeSubscriptionBanner": Self.bannerOff]),
                baseVersion: 1, author: "ops-alice", message: "later", applyAtMilliseconds: ChangeScheduler.wallClock() + 3_600_000,
                needsApproval: false, touchedFlags: ["showIntroFreeSubscriptionBanner"]))

            let service = try FlagService(store: store, logger: ServiceLogger(minimumLevel: .off))
            defer { service.shutdown() }
            // No waiting: the service applied them in its initializer.
            let current = try #require(service.snapshots.snapshot("production"))
            #expect(current.version == 3)
            #expect(current.document.flags["showIntroFreeSubscriptionBanner"]?.defaultValue == false)
            #expect(current.document.flags["subscriptionPriceIncreaseMessagingEnabled"]?.defaultValue == true)
            let applied = try store.change(id: missed.id)
            #expect(applied.status == .applied)
            #expect(try #require(applied.appliedAtMilliseconds) > due, "the record says when it really ran")
            #expect(try store.version(environment: "production", number: applied.appliedVersion ?? 0).message == "intro over")
            #expect(try store.change(id: request.id).status == .applied)
            #expect(try store.change(id: later.id).status == .scheduled)
            #expect(service.snapshots.snapshot("staging")?.version == 1)
        }
    }

    @Test func aPassExpiresRequestsAndSaysWhenToLookNext() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.service.scheduler.stop()  // this test runs the passes itself
        let now = ChangeScheduler.wallClock()
        let expiring = try server.store.createChange(NewChange(
            environment: "production", kind: .flags, changeSet: ChangeSet(flags: ["monetizationEnabled": ["type": "boolean", "default": false]]),
            baseVersion: 1, author: "ops-alice", message: "pause", expiresAtMilliseconds: now - 1, needsApproval: true,
            touchedFlags: ["monetizationEnabled"]))
        let waiting = try server.store.createChange(NewChange(
            environment: "production", kind: .flags, changeSet: ChangeSet(flags: ["monetizationEnabled": ["type": "boolean", "default": false]]),
            baseVersion: 1, author: "ops-alice", message: "pause later", expiresAtMilliseconds: now + 5_000, needsApproval: true,
            touchedFlags: ["monetizationEnabled"]))
        let outcome = server.service.jobs.pass(published: [])
        #expect(try server.store.change(id: expiring.id).status == .expired)
        #expect(try server.store.change(id: expiring.id).decidedBy == "scheduler")
        #expect(try server.store.change(id: waiting.id).status == .pending)
        #expect(outcome.nextDue == waiting.expiresAtMilliseconds)
        #expect(outcome.pendingRequests)
        _ = try server.store.cancelChange(id: waiting.id, actor: "ops-alice")
        #expect(server.service.jobs.pass(published: []) == ChangeScheduler.Outcome(nextDue: nil, pendingRequests: false))
    }

    @Test func aPublishThatChangesARequestsFlagMakesItStale() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let bob = try server.token("ops-bob")
        let first = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true", message: "lock")
        let firstID = try #require(try first.json()["change"]?["id"]?.integerValue)
        // Unrelated to the request: it stays pending.
        let unrelated = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false", message: "pause")
        let unrelatedID = try #require(try unrelated.json()["change"]?["id"]?.integerValue)
        let rule = #"{"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"cohort": "beta", "value": true}]}"#
        let second = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: rule, message: "beta only")
        let secondID = try #require(try second.json()["change"]?["id"]?.integerValue)
        #expect(try await server.change("POST", "/v1/changes/\(secondID)/approve", token: bob).status == 200)
        // The scheduler checks after the publish, off the writer thread: poll for it.
        var status = try server.store.change(id: firstID).status
        let deadline = Date().addingTimeInterval(10)
        while status == .pending, Date() < deadline {
            usleep(20_000)
            status = try server.store.change(id: firstID).status
        }
        #expect(status == .stale)
        #expect(try server.store.change(id: firstID).conflicts.map(\.pointer) == ["/flags/premiumFeaturesLocked"])
        #expect(try server.store.change(id: unrelatedID).status == .pending)
        #expect(try server.store.auditEntries(query: AuditQuery(action: "change.stale")).entries.first?.target == String(firstID))
    }
}
