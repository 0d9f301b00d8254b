import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// `/v1/webhooks` over real HTTP: register (the secret once), list, show, delete, the delivery log, refusals
/// with their paths, an unscoped admin only, the audit lines of each change, and destinations inside refused at
/// registration and at delivery.
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

    /// A server with the default destination policy, or `policy`: nothing allowed inside, not even the tests' receivers.
    static func strictServer(_ policy: WebhookDestinationPolicy = WebhookDestinationPolicy()) throws -> TestServer {
        var options = TestServer.options
        options.webhooks.destinations = policy
        return try TestServer(options: options)
    }

    @Test(arguments: [
        ("http://127.0.0.1:5432/", "127.0.0.1 is 127.0.0.1 in 127.0.0.0/8, loopback"),
        ("http://0x7f.1/", "0x7f.1 resolves to 127.0.0.1 in 127.0.0.0/8"),
        ("http://2130706433/", "2130706433 resolves to 127.0.0.1 in 127.0.0.0/8"),
        ("http://0177.0.0.1/", "0177.0.0.1 resolves to 127.0.0.1"),
        ("http://127.1/", "127.1 resolves to 127.0.0.1"),
        ("http://[::ffff:127.0.0.1]/", "which carries 127.0.0.1, in 127.0.0.0/8"),
        ("http://localhost./", "localhost. is a loopback name (RFC 6761)"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.0.0/16, link-local"),
        ("https://10.0.0.8/hook", "10.0.0.0/8, private (RFC 1918)"),
        ("https://[fd00::8]/hook", "fc00::/7, unique local"),
    ])
    func aURLInsideIsRefusedAtRegistrationWithTheReason(url: String, reason: String) async throws {
        let server = try Self.strictServer()
        defer { server.stop() }
        let response = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "\#(url)", "events": ["*"]}"#)
        #expect(response.status == 422)
        #expect(try response.errorCode() == "invalid_body")
        let detail = try #require(try response.json()["error"]?["details"]?.arrayValue?.first)
        #expect(detail["path"] == "/url")
        #expect(detail["message"]?.stringValue?.contains(reason) == true, "\(detail)")
        #expect(detail["message"]?.stringValue?.hasSuffix("webhooks are not sent to addresses inside "
            + "(flagserver --webhook-allow-network allows a network on purpose)") == true)
        #expect(try server.store.webhooks().isEmpty)
        let refusal = try await ServiceRoutesTests.pollAudit(server.store, count: 1) { $0.outcome == .refused }
        #expect(refusal.first?.action == "webhook.create" && refusal.first?.status == 422)
    }

    /// The name resolves to a public address at registration and to the loopback afterwards (DNS rebinding): the
    /// delivery is refused, nothing is sent, and the delivery log says so.
    @Test func aNameThatRebindsInsideAfterRegistrationIsRefusedAtDeliveryAndLoggedAsRefused() async throws {
        let lookups = Atomic(0)
        let server = try Self.strictServer(WebhookDestinationPolicy { _ throws(HostResolverError) in
            [lookups.add(1, ordering: .relaxed).oldValue == 0 ? "93.184.215.14" : "127.0.0.1"].compactMap { IPAddress($0) }
        })
        defer { server.stop() }
        let created = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "http://rebind.example:9/hook", "events": ["version.published"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(try created.json()["id"]?.integerValue)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false", message: "rebind").status == 200)
        var attempts: [JSONValue] = []
        let deadline = Date().addingTimeInterval(15)
        while attempts.isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            attempts = try await server.asAdmin("GET", "/v1/webhooks/\(id)/deliveries").json()["deliveries"]?.arrayValue?.first?["attempts"]?.arrayValue ?? []
        }
        let first = try #require(attempts.first)
        #expect(first["refused"] == true && first["responseStatus"] == .null)
        #expect(first["error"] == .string("refused: rebind.example resolves to 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122): webhooks are not "
            + "sent to addresses inside (flagserver --webhook-allow-network allows a network on purpose)"))
        #expect(lookups.load(ordering: .relaxed) >= 2, "looked up at registration and again at the attempt")
    }

    /// A name the resolver maps to an allowed address is delivered there by libcurl, under its own name (`Host`):
    /// the connection goes to the checked address, not to a lookup of its own (this name exists nowhere else).
    @Test func aDeliveryIsPinnedToTheCheckedAddressUnderItsName() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let server = try Self.strictServer(WebhookDestinationPolicy(allowedNetworks: [WebhookDestinationPolicy.testReceiverNetwork]) {
            _ throws(HostResolverError) in [IPAddress("127.0.0.1")].compactMap { $0 }
        })
        defer { server.stop() }
        let url = receiver.url.replacingOccurrences(of: "127.0.0.1", with: "receiver.invalid")
        let created = try await server.asAdmin("POST", "/v1/webhooks", json: #"{"url": "\#(url)", "events": ["version.published"]}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false", message: "pinned").status == 200)
        let delivery = try #require(try await receiver.waitFor(1).first)
        #expect(delivery.headers["Host"] == url.dropFirst("http://".count).prefix { $0 != "/" }.description)
        let id = try #require(try created.json()["id"]?.integerValue)
        let deadline = Date().addingTimeInterval(15)
        var attempt: JSONValue?
        while attempt?["responseStatus"] != 200, Date() < deadline {
            attempt = try await server.asAdmin("GET", "/v1/webhooks/\(id)/deliveries").json()["deliveries"]?.arrayValue?.first?["attempts"]?.arrayValue?.first
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(attempt?["responseStatus"] == 200 && attempt?["refused"] == false)
    }
}
