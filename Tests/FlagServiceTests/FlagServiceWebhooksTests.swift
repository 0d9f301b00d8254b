import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing

/// `/v1/webhooks` over real HTTP: register (the secret once), list, show, delete, the delivery log, refusals
/// with their paths, an unscoped admin only, and the audit lines of each change.
@Suite struct FlagServiceWebhooksTests {
    @Test func registersListsShowsAndDeletes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let created = try await server.asAdmin("POST", "/v1/webhooks",
                                     json: #"{"url": "https://hooks.example/symi", "events": ["version.published"], "environments": ["production"]}"#)
        #expect(created.status == 201)
        let body = try created.json()
        let id = try #require(body["id"]?.integerValue)
        #expect(created.header("Location") == "/v1/webhooks/\(id)" && created.header("Cache-Control") == "no-store")
        #expect(body["secret"]?.stringValue?.hasPrefix("whsec_") == true && body["secret"]?.stringValue?.count == 49)
        #expect(body["url"] == "https://hooks.example/symi" && body["events"] == ["version.published"] && body["environments"] == ["production"])
        #expect(body["createdBy"] == "test-admin" && body["active"] == true && body["deletedAt"] == .null)
        let list = try await server.asAdmin("GET", "/v1/webhooks").json()
        #expect(list["webhooks"]?.arrayValue?.map { $0["id"] } == [.integer(id)])
        #expect(!(try await server.asAdmin("GET", "/v1/webhooks").text).contains("whsec_"), "the secret is shown once")
        #expect(try await server.asAdmin("GET", "/v1/webhooks/\(id)").json()["url"] == "https://hooks.example/symi")
        #expect(try await server.asAdmin("GET", "/v1/webhooks/\(id)/deliveries").json() == ["deliveries": [], "next": nil])
        let deleted = try await server.asAdmin("DELETE", "/v1/webhooks/\(id)")
        #expect(deleted.status == 200)

        #expect(try deleted.json()["active"] == false)
        #expect(try await server.asAdmin("GET", "/v1/webhooks").json()["webhooks"] == [])
        #expect(try await server.asAdmin("GET", "/v1/webhooks?includeDeleted=true").json()["webhooks"]?.arrayValue?.count == 1)
        #expect(try await server.asAdmin("DELETE", "/v1/webhooks/\(id)").status == 404, "already deleted")
        #expect(try await server.asAdmin("GET", "/v1/webhooks/\(id)").status == 404, "a deleted webhook is gone")
        #expect(try await server.asAdmin("GET", "/v1/webhooks/\(id)/deliveries").status == 404)
        for path in ["/v1/webhooks/999", "/v1/webhooks/abc", "/v1/webhooks/0/deliveries"] {
            let missing = try await server.asAdmin("GET", path)
            #expect(missing.status == 404, "\(path)")

            #expect(try missing.errorCode() == "webhook_not_found", "\(path)")
        }
        let lines = try server.store.auditEntries(limit: 100).filter { $0.action.hasPrefix("webhook.") && $0.outcome == .ok }
        #expect(lines.map(\.action) == ["webhook.delete", "webhook.create"])
        #expect(lines.allSatisfy { $0.actor == "test-admin" && $0.target == String(id) && $0.client == "127.0.0.1" })
        let refused = try await ServiceRoutesTests.pollAudit(server.store, count: 1) { $0.outcome == .refused }
        #expect(refused.map(\.action) == ["webhook.delete"] && refused.first?.status == 404, "deleting it again was refused")
    }

    /// The governance events reach the delivery log as they happen: a policy set, a protected flip that became a
    /// request, its approval by a second person, the change applied and the version it published.
    @Test func changeAndPolicyEventsBecomeDeliveries() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let events = #"["policy.updated", "request.created", "request.approved", "change.applied", "version.published"]"#
        let created = try await server.asAdmin("POST", "/v1/webhooks",
                                     json: #"{"url": "https://hooks.example/symi", "events": \#(events), "environments": ["production"]}"#)
        let webhook = try #require(try created.json()["id"]?.integerValue)
        try await server.protectProduction()
        let put = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true", message: "paid launch")
        #expect(put.status == 202)
        let change = try #require(try put.json()["change"]?["id"]?.integerValue)
        let approved = try await server.change("POST", "/v1/changes/\(change)/approve", token: try server.token("ops-bob"))
        #expect(approved.status == 200, "\(approved.text)")

        let expected: [JSONValue] = ["change.applied", "version.published", "request.approved", "request.created", "policy.updated"]
        var deliveries: [JSONValue] = []
        let deadline = Date().addingTimeInterval(10)
        while deliveries.count < expected.count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            deliveries = try await server.asAdmin("GET", "/v1/webhooks/\(webhook)/deliveries").json()["deliveries"]?.arrayValue ?? []
        }
        #expect(deliveries.map { $0["type"] } == expected, "newest first: the version is announced before the writer completes the change")
        #expect(deliveries.allSatisfy { $0["environment"] == "production" })
    }

    @Test func aGivenSecretIsKeptAndSignsDeliveries() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let created = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "http://127.0.0.1:9/", "events": ["*"], "secret": "whsec_given"}"#)
        #expect(try created.json()["secret"] == "whsec_given")
        let id = try #require(try created.json()["id"]?.integerValue)
        #expect(try server.store.webhookEndpoint(id: id).secret == "whsec_given")
    }

    @Test(arguments: [
        (#"{"url": "ftp://a.example", "events": ["*"]}"#, "/url"),
        (#"{"url": "https://user:pw@a.example/", "events": ["*"]}"#, "/url"),
        (#"{"url": "https://a.example", "events": ["version.publish"]}"#, "/events"),
        (#"{"url": "https://a.example", "events": ["*"], "environments": ["prod"]}"#, "/environments/0"),
        (#"{"url": "https://a.example", "events": ["*"], "colour": "red"}"#, "/colour"),
        (#"{"url": "https://a.example"}"#, "/events"),
    ])
    func refusesABadRegistrationNamingTheMember(body: String, path: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.asAdmin("POST", "/v1/webhooks", json: body)
        #expect(response.status == 422)

        #expect(try response.errorCode() == "invalid_body")
        #expect(try response.json()["error"]?["details"]?.arrayValue?.first?["path"] == .string(path))
        #expect(try server.store.webhooks().isEmpty)
        let refusal = try await ServiceRoutesTests.pollAudit(server.store, count: 1) { $0.outcome == .refused }
        #expect(refusal.first?.action == "webhook.create" && refusal.first?.status == 422 && refusal.first?.actor == "test-admin")
    }

    @Test func needsAnAdminForEveryEnvironment() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = #"{"url": "https://a.example", "events": ["*"]}"#
        #expect(try await server.asAdmin("POST", "/v1/webhooks", json: body, token: server.writerToken).status == 403)
        let scoped = try server.token("prod-admin", .admin, environments: ["production"])
        let refused = try await server.asAdmin("POST", "/v1/webhooks", json: body, token: scoped)
        #expect(refused.status == 403)

        #expect(try refused.errorCode() == "environment_not_allowed")
        #expect(try await server.asAdmin("GET", "/v1/webhooks", token: scoped).status == 403)
        #expect(try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/webhooks").status == 401)
        let lines = try await ServiceRoutesTests.pollAudit(server.store, count: 2) { $0.outcome == .refused }
        #expect(lines.map(\.actor) == ["prod-admin", "test-writer"], "a refused token is named; GETs are not audited")
    }

    @Test func theDeliveryLogPagesAndRefusesBadParameters() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let webhook = try server.store.createWebhook(url: "http://127.0.0.1:9/", secret: "s", events: ["*"], actor: "admin")
        // Due far in the future: the dispatcher leaves them alone.
        for index in 0..<3 {
            _ = try server.store.enqueueWebhookEvent(WebhookEvent(id: "evt_\(index)", type: "version.published", environment: "production",
                                                                   payload: Array("{}".utf8), createdAtMilliseconds: .max / 2))
        }
        let first = try await server.asAdmin("GET", "/v1/webhooks/\(webhook.id)/deliveries?limit=2").json()
        #expect(first["deliveries"]?.arrayValue?.map { $0["eventId"] } == ["evt_2", "evt_1"])
        #expect(first["deliveries"]?.arrayValue?.first?["status"] == "pending" && first["deliveries"]?.arrayValue?.first?["attempts"] == [])
        let next = try #require(first["next"]?.integerValue)
        let second = try await server.asAdmin("GET", "/v1/webhooks/\(webhook.id)/deliveries?limit=2&before=\(next)").json()
        #expect(second["deliveries"]?.arrayValue?.map { $0["eventId"] } == ["evt_0"] && second["next"] == .null)
        #expect(try await server.asAdmin("GET", "/v1/webhooks/\(webhook.id)/deliveries?limit=0").status == 400)
        #expect(try await server.asAdmin("GET", "/v1/webhooks?includeDeleted=perhaps").status == 400)
    }
}
