import AppStoreNotifications
import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// Guards over a real socket and a real SQLite file (docs/guards.md, "The service"): refunds posted through the real
/// receiver trip a guard at the stepped clock, which rolls back, holds schedules or only notifies, audited and sent as
/// webhook events; a normal week holds, audited once an hour; a second person overrides; refusals name their reason.
@Suite struct GuardsControllerTests {
    static let rollbackRule = #"{"metric": "refunds", "action": "rollback"}"#

    /// The value of the metric line starting with `series` in `exposition`.
    static func value(_ exposition: String, _ series: String) -> Int? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Int($0.dropFirst(series.count + 1)) }
    }

    @Test func aRefundSpikeThroughTheReceiverRollsBackAndAnOverrideRepublishes() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let hook = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "\#(receiver.url)", "events": ["guard.added", "guard.tripped", "guard.acted", "guard.overridden"]}"#)
        #expect(hook.status == 201, "\(hook.text)")
        try harness.storeNormalRefunds()
        let created = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule)}"#)
        #expect(created.status == 201, "\(created.text)")
        let guardJSON = try created.json()["guard"]
        let id = try #require(guardJSON?["id"]?.integerValue)
        #expect(guardJSON?["status"] == "watching" && guardJSON?["version"] == 2 && guardJSON?["previousVersion"] == 1)
        #expect(guardJSON?["rule"]?["minimumCount"] == 5 && guardJSON?["appStoreEnvironment"] == "Production", "defaults written")
        #expect(created.header("Location") == "/v1/guards/\(id)")

        harness.pass(hours: 1)
        #expect(try server.store.guardRecord(id: id).status == .watching)
        try await harness.postRefundSpike(count: 25, hoursAfter: 1)
        harness.pass(hours: 2, minutes: 30)
        let tripped = try server.store.guardRecord(id: id)
        #expect(tripped.status == .tripped, "\(String(describing: tripped.lastDecision))")
        #expect(tripped.action?["kind"] == "rollback" && tripped.action?["outcome"] == "done" && tripped.action?["version"] == 3)
        // The rollback is an ordinary publish by `guard`: version 3 has version 1's content and names the guard.
        let three = try server.store.version(environment: "production", number: 3)
        #expect(three.author == "guard" && three.message.hasPrefix("guard \(id) on refunds tripped: "), "\(three.message)")
        #expect(three.contentHash == (try server.store.version(environment: "production", number: 1)).contentHash)
        let document = try await server.get("/v1/environments/production/document")
        #expect(document.header("ETag")?.contains("3") == true)
        #expect(try server.store.auditEntries(query: AuditQuery(environment: "production", action: "publish")).entries.first?.actor == "guard")
        #expect(try harness.audit("guard.tripped", guard: id).count == 1 && harness.audit("guard.acted", guard: id).count == 1)
        let events = try await receiver.waitFor(3).map { try $0.json() }
        let byType = Dictionary(events.map { ($0["type"]?.stringValue ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(byType.keys) == ["guard.added", "guard.tripped", "guard.acted"])
        #expect(byType["guard.tripped"]?["data"]?["decision"]?["verdict"] == "tripped")
        #expect(byType["guard.acted"]?["data"]?["guard"]?["action"]?["version"] == 3)
        #expect(byType["guard.acted"]?["data"]?["decision"]?["verdict"] == "tripped")
        // Tripped guards are not evaluated again.
        harness.pass(hours: 3)
        #expect(try harness.audit("guard.tripped", guard: id).count == 1)

        // The creator (who also published version 2) may not override; a second person may, and version 2 comes back.
        let selfOverride = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "mine"}"#,
                                                   token: server.writerToken)
        #expect(try selfOverride.status == 403 && (selfOverride.errorCode()) == "self_override")
        let bob = try server.token("ops-bob")
        let noMessage = try await server.change("POST", "/v1/guards/\(id)/override", json: "{}", token: bob)
        #expect(try noMessage.status == 400 && (noMessage.errorCode()) == "message_required")
        let override = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "a store feature, not the change"}"#,
                                                token: bob)
        #expect(override.status == 200, "\(override.text)")
        #expect(try override.json()["guard"]?["status"] == "overridden" && override.json()["version"] == 4)
        let four = try server.store.version(environment: "production", number: 4)
        #expect(four.author == "ops-bob" && four.message.hasPrefix("override of guard \(id): "))
        #expect(four.contentHash == (try server.store.version(environment: "production", number: 2)).contentHash)
        let again = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "again"}"#, token: bob)
        #expect(try again.status == 409 && (again.errorCode()) == "not_tripped")
        #expect(try harness.audit("guard.override", guard: id).filter { $0.outcome == .ok }.map(\.actor) == ["ops-bob"])
        #expect(try await receiver.waitFor(4).contains { try $0.json()["type"] == "guard.overridden" })
        let shown = try await server.get("/v1/guards/\(id)", headers: [("Authorization", "Bearer \(bob)")]).json()
        #expect(shown["guard"]?["overriddenBy"] == "ops-bob")
        #expect(shown["decisions"]?.arrayValue?.compactMap { $0["action"]?.stringValue } == ["guard.acted", "guard.tripped", "guard.held"])
    }

    @Test func aNormalWeekHoldsAndIsAuditedOncePerHour() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let hook = try await harness.server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "\#(receiver.url)", "events": ["guard.held", "guard.closed"]}"#)
        #expect(hook.status == 201, "\(hook.text)")
        try harness.storeNormalRefunds(after: 4)
        let created = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "action": "notify"}}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        // A pass every ten minutes for three and a half hours: 21 looks, three complete hours (the first hour's six
        // looks have no complete hour yet).
        for step in 0..<21 {
            harness.clock.set(harness.hourStart + Int64(step) * 600_000 + 60_000)
            harness.server.service.runGuards()
        }
        let record = try harness.server.store.guardRecord(id: id)
        #expect(record.status == .watching && record.lastDecision?["verdict"] == "held", "\(String(describing: record.lastDecision))")
        #expect(record.lastDecision?["hours"] == 3 && record.lastDecision?["count"] == 3)
        #expect(try harness.audit("guard.held", guard: id).count == 3)
        #expect(try harness.audit("guard.tripped", guard: id).isEmpty)
        let metrics = try await harness.server.get("/metrics").text
        #expect(metrics.contains("flagserver_guards{status=\"watching\"} 1\n"))
        #expect(metrics.contains("flagserver_guard_decisions_total{verdict=\"tripped\"} 0\n"))
        // At least this test's looks (the scheduler's own passes may add some).
        #expect(Self.value(metrics, #"flagserver_guard_decisions_total{verdict="held"}"#) ?? 0 >= 15, "\(metrics)")
        // The first hour's looks: before publication (outside the window) or with no complete hour yet.
        let early = (Self.value(metrics, #"flagserver_guard_decisions_total{verdict="notEnoughData"}"#) ?? 0)
            + (Self.value(metrics, #"flagserver_guard_decisions_total{verdict="outsideWindow"}"#) ?? 0)
        #expect(early >= 6)
        // Past the window the guard is closed, with one audit line.
        harness.pass(hours: 73)
        #expect(try harness.server.store.guardRecord(id: id).status == .closed)
        harness.pass(hours: 74)
        #expect(try harness.audit("guard.closed", guard: id).count == 1)
        // Each audited decision is also a webhook event: three held hours, then the close.
        let events = try await receiver.waitFor(4).map { try $0.json()["type"]?.stringValue ?? "" }
        #expect(events.filter { $0 == "guard.held" }.count == 3 && events.filter { $0 == "guard.closed" }.count == 1, "\(events)")
    }

    @Test func notifyOnlyAudits() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        try harness.storeNormalRefunds()
        let created = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "action": "notify"}}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        try await harness.postRefundSpike(count: 25)
        harness.pass(hours: 2, minutes: 5)
        let record = try harness.server.store.guardRecord(id: id)
        #expect(record.status == .tripped && record.action?["kind"] == "notify" && record.action?["outcome"] == "done")
        #expect(try harness.server.store.newestVersions()["production"]?.number == 2, "nothing published")
        #expect(try harness.audit("guard.acted", guard: id).count == 1)
    }

    @Test func pauseSchedulesHoldsAScheduleUntilTheOverride() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let carol = try server.token("ops-carol")
        let created = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "action": "pauseSchedules"}}"#, token: carol)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        try await harness.postRefundSpike(count: 25)
        // Due in five seconds, held at once by the trip.
        let applyAt = ServiceMetrics.wallMilliseconds() + 5_000
        let schedule = try await server.write("POST", "/v1/environments/production/schedules",
                                              json: #"{"at": "\#(RFC3339.string(milliseconds: applyAt))", "flags": {"premiumFeaturesLocked": true}}"#)
        #expect(schedule.status == 201, "\(schedule.text)")
        let change = try #require(try schedule.json()["change"]?["id"]?.integerValue)
        harness.pass(hours: 2, minutes: 5)
        let record = try server.store.guardRecord(id: id)
        #expect(record.status == .tripped && record.action?["changes"] == [.integer(change)], "\(String(describing: record.action))")
        // A schedule made after the trip is held as well (the pass its creation wakes holds it before it is due).
        let laterAt = ServiceMetrics.wallMilliseconds() + 5_000
        let second = try await server.write("POST", "/v1/environments/production/schedules",
                                            json: #"{"at": "\#(RFC3339.string(milliseconds: laterAt))", "flags": {"billingRetryAccessDays": 7}}"#)
        let secondID = try #require(try second.json()["change"]?["id"]?.integerValue)
        // Past their time the schedules wait: held by the guard.
        while ServiceMetrics.wallMilliseconds() < max(applyAt, laterAt) + 2_000 { try await Task.sleep(for: .milliseconds(200)) }
        let held = try server.store.change(id: change)
        #expect(held.status == .scheduled && held.heldByGuard == id)
        #expect(try server.store.change(id: secondID).heldByGuard == id)
        #expect(try server.store.newestVersions()["production"]?.number == 2)
        // The overrider may not be the version's author either (the test writer published version 2).
        let author = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "x"}"#, token: server.writerToken)
        #expect(try author.status == 403 && (author.errorCode()) == "self_override")
        let bob = try server.token("ops-bob")
        let override = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "release"}"#, token: bob)
        #expect(override.status == 200, "\(override.text)")
        var applied = try server.store.change(id: change)
        for _ in 0..<100 where applied.status != .applied {
            try await Task.sleep(for: .milliseconds(100))
            applied = try server.store.change(id: change)
        }
        #expect(applied.status == .applied && applied.heldByGuard == nil)
        var secondApplied = try server.store.change(id: secondID)
        for _ in 0..<100 where secondApplied.status != .applied {
            try await Task.sleep(for: .milliseconds(100))
            secondApplied = try server.store.change(id: secondID)
        }
        #expect(secondApplied.status == .applied && Set([applied.appliedVersion, secondApplied.appliedVersion]) == [3, 4])
    }

    @Test func aRollbackNeverUndoesALaterChangeOfItsItemsAndAnOverrideNeverRepublishesOverOne() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let carol = try server.token("ops-carol")
        let first = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule)}"#, token: carol)
        let id = try #require(try first.json()["guard"]?["id"]?.integerValue)
        // Someone changes the watched flag again: the guard must not set it back.
        let later = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner",
                                           json: #"{"type": "boolean", "default": false, "description": "later"}"#)
        #expect(later.status == 200, "\(later.text)")
        try await harness.postRefundSpike(count: 25)
        harness.pass(hours: 2, minutes: 5)
        let record = try server.store.guardRecord(id: id)
        #expect(record.status == .tripped && record.action?["outcome"] == "failed", "\(String(describing: record.action))")
        #expect(record.action?["reason"]?.stringValue?.hasPrefix("head_moved") == true)
        #expect(try server.store.newestVersions()["production"]?.number == 3)
        #expect(try harness.audit("guard.acted", guard: id).first?.outcome == .failed)
    }

    @Test func anOverrideAfterALaterPublishIsRefusedWithHeadMoved() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let carol = try server.token("ops-carol")
        let created = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule)}"#, token: carol)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        try await harness.postRefundSpike(count: 25)
        harness.pass(hours: 2, minutes: 5)
        #expect(try server.store.guardRecord(id: id).action?["version"] == 3)
        let unrelated = try await server.write("PUT", "/v1/environments/production/flags/billingRetryAccessDays", json: "5")
        #expect(unrelated.status == 200)
        let bob = try server.token("ops-bob")
        let override = try await server.change("POST", "/v1/guards/\(id)/override", json: #"{"message": "no"}"#, token: bob)
        #expect(try override.status == 409 && (override.errorCode()) == "head_moved", "\(override.text)")
        #expect(try server.store.guardRecord(id: id).status == .tripped)
        #expect(try server.store.newestVersions()["production"]?.number == 4)
        // A guard that did not trip cannot be overridden.
        let watching = try await harness.addGuard(#"{"version": 4, "rule": {"metric": "refunds", "action": "notify"}}"#, token: carol)
        let other = try #require(try watching.json()["guard"]?["id"]?.integerValue)
        let early = try await server.change("POST", "/v1/guards/\(other)/override", json: #"{"message": "x"}"#, token: bob)
        #expect(try early.status == 409 && (early.errorCode()) == "not_tripped")
    }

    @Test func aGuardOnARequestWatchesWhenItIsAppliedAndIsCancelledWhenRejected() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try await server.protectProduction()
        let proposed = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        #expect(proposed.status == 202, "\(proposed.text)")
        let request = try #require(try proposed.json()["change"]?["id"]?.integerValue)
        let other = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false")
        let rejected = try #require(try other.json()["change"]?["id"]?.integerValue)
        let onRequest = try await harness.addGuard(#"{"change": \#(request), "rule": \#(Self.rollbackRule)}"#)
        let onRejected = try await harness.addGuard(#"{"change": \#(rejected), "rule": \#(Self.rollbackRule)}"#)
        #expect(try onRequest.status == 201 && (onRequest.json()["guard"]?["status"]) == "waiting", "\(onRequest.text)")
        let waiting = try #require(try onRequest.json()["guard"]?["id"]?.integerValue)
        let doomed = try #require(try onRejected.json()["guard"]?["id"]?.integerValue)
        harness.server.service.runGuards()
        #expect(try server.store.guardRecord(id: waiting).status == .waiting)
        let bob = try server.token("ops-bob")
        let approved = try await server.change("POST", "/v1/changes/\(request)/approve", json: "{}", token: bob)
        #expect(approved.status == 200, "\(approved.text)")
        let reject = try await server.change("POST", "/v1/changes/\(rejected)/reject", json: #"{"message": "no"}"#, token: bob)
        #expect(reject.status == 200)
        harness.server.service.runGuards()
        let watching = try server.store.guardRecord(id: waiting)
        #expect(watching.status == .watching && watching.version == 3 && watching.previousVersion == 2)
        #expect(watching.publishedAtMilliseconds == (try server.store.version(environment: "production", number: 3)).createdAtMilliseconds)
        #expect(try server.store.guardRecord(id: doomed).status == .cancelled)
        let final = try await harness.addGuard(#"{"change": \#(rejected), "rule": \#(Self.rollbackRule)}"#)
        #expect(try final.status == 409 && (final.errorCode()) == "guard_not_applicable")
    }

    @Test func removeListAndRefusals() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        let created = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule), "product": "app.symi.plus.monthly"}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        let listed = try await server.get("/v1/environments/production/guards?status=watching",
                                          headers: [("Authorization", "Bearer \(server.writerToken)")])
        #expect(try listed.json()["guards"]?.arrayValue?.count == 1)
        let reader = try await server.get("/v1/environments/production/guards", headers: [("Authorization", "Bearer \(server.readerToken)")])
        #expect(reader.status == 403)
        let removed = try await server.change("DELETE", "/v1/guards/\(id)", token: server.writerToken)
        #expect(try removed.status == 200 && (removed.json()["guard"]?["status"]) == "removed")
        let again = try await server.change("DELETE", "/v1/guards/\(id)", token: server.writerToken)
        #expect(try again.status == 409 && (again.errorCode()) == "not_removable")
        #expect(try harness.audit("guard.remove", guard: id).filter { $0.outcome == .ok }.count == 1)
        #expect(try await server.change("DELETE", "/v1/guards/999", token: server.writerToken).status == 404)

        let cases: [(String, String)] = [
            (#"{"version": 2, "rule": {"metric": "sessions", "action": "notify"}}"#, "metric"),
            (#"{"version": 2, "rule": {"metric": "refunds", "action": "notify", "baseline": "ceiling"}}"#, "threshold"),
            (#"{"version": 2, "rule": {"metric": "refunds"}}"#, "action"),
            (#"{"version": 2, "change": 1, "rule": {"metric": "refunds", "action": "notify"}}"#, "change"),
            (#"{"version": 2}"#, "rule"),
            (#"{"version": 2, "rule": {"metric": "refunds", "action": "notify"}, "appStoreEnvironment": "Prod"}"#, "appStoreEnvironment"),
            (#"{"version": 2, "rule": {"metric": "refunds", "action": "notify"}, "extra": 1}"#, "extra"),
        ]
        for (body, field) in cases {
            let response = try await harness.addGuard(body)
            #expect(try response.status == 422 && (response.errorCode()) == "invalid_guard", "\(body): \(response.text)")
            #expect(try response.json()["error"]?["field"] == .string(field), "\(body): \(response.text)")
        }
        let missing = try await harness.addGuard(#"{"version": 9, "rule": \#(Self.rollbackRule)}"#)
        #expect(try missing.status == 404 && (missing.errorCode()) == "version_not_found")
        let noChange = try await harness.addGuard(#"{"change": 99, "rule": \#(Self.rollbackRule)}"#)
        #expect(try noChange.status == 404 && (noChange.errorCode()) == "change_not_found")
        harness.clock.set(harness.published + 73 * GuardHarness.hour)
        let over = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule)}"#)
        #expect(try over.status == 409 && (over.errorCode()) == "guard_not_applicable")
    }

    @Test func aNodeThatDoesNotRunTheJobsEvaluatesNothing() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let created = try await harness.addGuard(#"{"version": 2, "rule": \#(Self.rollbackRule)}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        try await harness.postRefundSpike(count: 25)
        harness.clock.set(harness.hourStart + 2 * GuardHarness.hour + 300_000)
        let follower = GuardRunner(store: server.store, writer: server.service.writer, webhooks: server.service.webhooks,
                                   leadership: Leadership(.shared), logger: server.service.logger, metrics: GuardMetrics(),
                                   appStore: server.service.options.appStore, clock: { [clock = harness.clock] in clock.now })
        follower.runNow()
        let record = try server.store.guardRecord(id: id)
        #expect(record.status == .watching && record.lastDecision == nil)
        #expect(try server.store.newestVersions()["production"]?.number == 2)
        // The node that leads trips it at the same clock.
        server.service.runGuards()
        #expect(try server.store.guardRecord(id: id).status == .tripped)
    }
}
