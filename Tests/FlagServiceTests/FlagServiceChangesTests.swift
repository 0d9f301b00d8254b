import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// `/v1/changes/{id}`: showing, cancelling, approving and rejecting, over real HTTP, with every refusal.
@Suite struct FlagServiceChangesTests {
    static let lockPath = "/v1/environments/production/flags/premiumFeaturesLocked"

    /// A protected flip by the test writer: its change request's id.
    static func request(_ server: TestServer, _ value: String = "true") async throws -> Int64 {
        let response = try await server.write("PUT", lockPath, json: value, message: "paid launch")
        guard response.status == 202, let id = try response.json()["change"]?["id"]?.integerValue else {
            throw TestFailure("expected 202 with a change: \(response.status) \(response.text)")
        }
        return id
    }

    @Test func aSecondPersonApprovesAndTheAnswerComesAfterThePublish() async throws {
        let server = try TestServer(options: FlagService.Options())  // the answer's impact on the default 100,000 installs
        defer { server.stop() }
        try await server.protectProduction()
        let bob = try server.token("ops-bob")
        let put = try await server.write("PUT", Self.lockPath, json: "true", message: "paid launch")
        #expect(put.status == 202)
        let id = try #require(try put.json()["change"]?["id"]?.integerValue)
        #expect(put.header("Location") == "/v1/changes/\(id)")
        #expect(try put.json()["change"]?["status"] == "pending")
        #expect(try put.json()["diff"]?["flags"]?["changed"]?.arrayValue?.count == 1)
        #expect(try put.json()["impact"]?["flags"]?["premiumFeaturesLocked"]?["changed"] == 100_000)
        #expect(try await server.get("/v1/environments/production/document").json()["version"] == 1, "nothing published")

        let own = try await server.change("POST", "/v1/changes/\(id)/approve", token: server.writerToken)
        #expect(own.status == 403)
        #expect(try own.errorCode() == "self_approval")
        #expect(try own.json()["error"]?["change"]?["status"] == "pending")
        let reader = try await server.change("POST", "/v1/changes/\(id)/approve", token: server.readerToken)
        #expect(reader.status == 403)
        #expect(try reader.errorCode() == "forbidden")

        let approved = try await server.change("POST", "/v1/changes/\(id)/approve", json: #"{"message": "checked with finance"}"#, token: bob)
        #expect(approved.status == 200, "\(approved.text)")
        let body = try approved.json()
        #expect(body["version"] == 2)
        #expect(body["author"] == "test-writer", "the version's author is who proposed it")
        #expect(body["message"] == "paid launch")
        #expect(body["change"]?["status"] == "applied")
        #expect(body["change"]?["appliedVersion"] == 2)
        #expect(body["change"]?["approvedBy"] == "ops-bob")
        #expect(body["change"]?["decisionMessage"] == "checked with finance")
        #expect(approved.header("ETag") == body["etag"]?.stringValue)
        let document = try await server.get("/v1/environments/production/document").json()
        #expect(document["version"] == 2)
        #expect(document["document"]?["flags"]?["premiumFeaturesLocked"]?["default"] == true)

        let again = try await server.change("POST", "/v1/changes/\(id)/approve", token: bob)
        #expect(again.status == 409)
        #expect(try again.errorCode() == "not_pending")
        #expect(try again.json()["error"]?["status"] == "applied")
        let shown = try await server.get("/v1/changes/\(id)")
        #expect(shown.status == 200)
        #expect(try shown.json()["change"]?["status"] == "applied")
        let audit = try server.store.auditEntries(query: AuditQuery(action: "change.approve", outcome: .ok))
        #expect(audit.entries.map(\.actor) == ["ops-bob"])
        #expect(audit.entries.first?.target == String(id))
        #expect(audit.entries.first?.client == "127.0.0.1")
        // The three refused approvals are lines too (the route layer's, committed within ~50 ms).
        var refused: [AuditEntry] = []
        let deadline = Date().addingTimeInterval(10)
        while refused.count < 3, Date() < deadline {
            usleep(20_000)
            refused = try server.store.auditEntries(query: AuditQuery(action: "change.approve", outcome: .refused)).entries
        }
        #expect(refused.map(\.actor) == ["ops-bob", "test-reader", "test-writer"], "newest first")
        #expect(refused.map(\.status) == [409, 403, 403])
        #expect(refused.allSatisfy { $0.target == String(id) })
    }

    @Test func rejectingNeedsAMessageAndEndsTheRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let bob = try server.token("ops-bob")
        let id = try await Self.request(server)
        let silent = try await server.change("POST", "/v1/changes/\(id)/reject", json: "{}", token: bob)
        #expect(silent.status == 400)
        #expect(try silent.errorCode() == "message_required")
        let rejected = try await server.change("POST", "/v1/changes/\(id)/reject", json: #"{"message": "not before the launch date"}"#,
                                               token: bob)
        #expect(rejected.status == 200)
        #expect(try rejected.json()["change"]?["status"] == "rejected")
        #expect(try rejected.json()["change"]?["decidedBy"] == "ops-bob")
        #expect(try rejected.json()["change"]?["decisionMessage"] == "not before the launch date")
        let late = try await server.change("POST", "/v1/changes/\(id)/approve", token: bob)
        #expect(late.status == 409)
        #expect(try late.json()["error"]?["status"] == "rejected")
        #expect(try await server.get("/v1/environments/production/document").json()["version"] == 1)
    }

    @Test func cancellingAndTheRefusalsOfAnUnknownOrMalformedId() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let id = try await Self.request(server)
        let cancelled = try await RawHTTP.request(port: server.port, method: "DELETE", path: "/v1/changes/\(id)",
                                                  headers: [("Authorization", "Bearer \(server.writerToken)"),
                                                            ("X-Change-Message", "wrong%20day")])
        #expect(cancelled.status == 200)
        #expect(try cancelled.json()["change"]?["status"] == "cancelled")
        #expect(try cancelled.json()["change"]?["decisionMessage"] == "wrong day")
        let twice = try await server.change("DELETE", "/v1/changes/\(id)", token: server.writerToken)
        #expect(twice.status == 409)
        #expect(try twice.errorCode() == "not_cancellable")
        #expect(try await server.get("/v1/changes/999").status == 404)
        #expect(try await server.get("/v1/changes/999").errorCode() == "change_not_found")
        #expect(try await server.get("/v1/changes/abc").errorCode() == "invalid_change_id")
        #expect(try await server.change("DELETE", "/v1/changes/\(id)", token: "sfl_nobody").status == 401)
    }

    @Test func aScopedTokenSeesAndDecidesOnlyItsEnvironmentsChanges() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let id = try await Self.request(server)
        let stagingOnly = try server.token("staging-ci", environments: ["staging"])
        for (method, path) in [("POST", "/v1/changes/\(id)/approve"), ("POST", "/v1/changes/\(id)/reject"), ("DELETE", "/v1/changes/\(id)")] {
            let response = try await server.change(method, path, json: method == "POST" ? #"{"message": "x"}"# : nil, token: stagingOnly)
            #expect(response.status == 403, "\(method) \(path)")
            #expect(try response.errorCode() == "environment_not_allowed", "\(method) \(path)")
        }
        #expect(try server.store.change(id: id).status == .pending)
        // Reads are public by default, like the document's: the change is shown to anyone.
        #expect(try await server.get("/v1/changes/\(id)").status == 200)
    }

    @Test func whereReadsNeedATokenAScopedOneCannotReadAnotherEnvironmentsChange() async throws {
        var options = TestServer.options
        options.requireReadToken = true
        options.tokenRefreshInterval = .milliseconds(20)
        let server = try TestServer(options: options)
        defer { server.stop() }
        try await server.protectProduction()
        let id = try await Self.request(server)
        let stagingOnly = try server.token("staging-ci", .reader, environments: ["staging"])
        // The read-token table is reloaded every 20 ms here; poll until the new token is known.
        var shown = try await server.change("GET", "/v1/changes/\(id)", token: stagingOnly)
        for _ in 0..<250 where shown.status == 401 {
            usleep(20_000)
            shown = try await server.change("GET", "/v1/changes/\(id)", token: stagingOnly)
        }
        #expect(shown.status == 403)
        #expect(try shown.errorCode() == "environment_not_allowed")
        #expect(try await server.change("GET", "/v1/changes/\(id)", token: server.readerToken).status == 200)
        #expect(try await server.get("/v1/changes/\(id)").status == 401)
    }

    @Test func anExpiredOrStaleRequestIsRefusedAndMarkedSo() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let bob = try server.token("ops-bob")
        // The scheduler would expire and mark them itself; stopped, the approval's own checks are what is seen.
        server.service.scheduler.stop()
        let stale = try await Self.request(server)
        let rule = #"{"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"cohort": "beta", "value": true}]}"#
        let other = try await server.write("PUT", Self.lockPath, json: rule, message: "a rule for beta instead")
        let otherID = try #require(try other.json()["change"]?["id"]?.integerValue)
        #expect(try await server.change("POST", "/v1/changes/\(otherID)/approve", token: bob).status == 200)
        let refused = try await server.change("POST", "/v1/changes/\(stale)/approve", token: bob)
        #expect(refused.status == 409)
        #expect(try refused.errorCode() == "request_stale")
        #expect(try refused.json()["error"]?["conflicts"] == ["/flags/premiumFeaturesLocked"])
        #expect(try await server.get("/v1/changes/\(stale)").json()["change"]?["status"] == "stale")

        let expiring = try server.store.createChange(NewChange(
            environment: "production", kind: .flags, changeSet: ChangeSet(flags: ["monetizationEnabled": ["type": "boolean", "default": false]]),
            baseVersion: 2, author: "ops-carol", message: "pause", expiresAtMilliseconds: ChangeScheduler.wallClock() + 30, needsApproval: true,
            touchedFlags: ["monetizationEnabled"], protectedFlags: ["monetizationEnabled"]))
        usleep(60_000)
        let expired = try await server.change("POST", "/v1/changes/\(expiring.id)/approve", token: bob)
        #expect(expired.status == 409)
        #expect(try expired.errorCode() == "request_expired")
        #expect(try server.store.change(id: expiring.id).status == .expired)
        #expect(try await server.get("/v1/environments/production/document").json()["version"] == 2)
    }
}
