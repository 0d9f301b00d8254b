import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl webhook add|remove|deliveries` against a real `flagserver`.
@Suite struct WebhookCommandTests {
    private func usageError(_ arguments: [String]) -> String? {
        if case .usageError(let error) = FlagCtl.parse(arguments) { return error.message }
        return nil
    }

    @Test func readsItsArgumentsAndRefusesBadOnes() throws {
        guard case .run(let command, _) = FlagCtl.parse(["webhook", "add", "https://h.example/x", "--events", "version.published, request.created",
                                                         "--env", "production", "--env", "staging"]) else {
            Issue.record("not parsed")
            return
        }
        let add = try #require(command as? WebhookCommand.Add)
        #expect(add.url == "https://h.example/x" && add.events == ["version.published", "request.created"])
        #expect(add.environments == ["production", "staging"] && add.secret == nil)
        #expect(usageError(["webhook", "add", "https://h.example/x"]) == "missing option '--events <list>'")
        #expect(usageError(["webhook", "add", "https://h.example/x", "--events", ","]) == "--events needs at least one event type (or '*')")
        #expect(usageError(["webhook", "remove", "x"]) == "'x' is not a webhook id (a positive whole number)")
        #expect(usageError(["webhook", "deliveries", "1", "--limit", "0"]) == "--limit '0' must be a whole number from 1 to 1000")
        #expect(usageError(["webhook"])?.hasPrefix("missing webhook command") == true)
        guard case .run(let secretCommand, _) = FlagCtl.parse(["webhook", "add", "https://h.example/x", "--events", "*"],
                                                               environment: ["FLAGCTL_WEBHOOK_SECRET": "whsec_env"]) else {
            Issue.record("webhook add with FLAGCTL_WEBHOOK_SECRET did not parse as a command")
            return
        }
        #expect((secretCommand as? WebhookCommand.Add)?.secret == "whsec_env", "the secret can stay out of the shell history")
    }

    @Test func addsListsShowsDeliveriesAndRemovesAgainstARealServer() throws {
        // Webhooks to loopback are allowed explicitly: nothing inside is by default.
        let server = try SeededFlagServer(arguments: ["--webhook-allow-network", "127.0.0.0/8"])
        defer { server.stop() }
        let admin = server.environment(token: .value(try server.token(name: "ops-admin", role: "admin")))
        #expect(try server.flagctl(["webhooks"], environment: admin).stdout == "no webhooks\n")
        // Port 9 (discard) on loopback: nothing listens, so every attempt fails at once and is logged.
        let added = try server.flagctl(["webhook", "add", "http://127.0.0.1:9/hook", "--events", "version.published", "--env", "production"],
                                       environment: admin)
        #expect(added.status == 0, "\(added.stderr)")
        let lines = added.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "registered webhook 1: http://127.0.0.1:9/hook (events version.published; environments production)")
        #expect(lines.count == 3 && lines[2].hasPrefix("whsec_"), "the secret, once")
        let list = try server.flagctl(["webhooks"], environment: admin).stdout
        #expect(list.hasPrefix("ID  EVENTS             ENVIRONMENTS  CREATED"))
        #expect(list.contains("1   version.published  production") && list.hasSuffix("ops-admin  http://127.0.0.1:9/hook\n"))
        #expect(!list.contains("whsec_"))

        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "hook"]).status == 0)
        var deliveries = ""
        let deadline = Date().addingTimeInterval(10)
        while !deliveries.contains("1: no answer"), Date() < deadline {
            deliveries = try server.flagctl(["webhook", "deliveries", "1"], environment: admin).stdout
            if !deliveries.contains("1: no answer") { usleep(50_000) }
        }
        #expect(deliveries.hasPrefix("DELIVERY  EVENT"))
        #expect(deliveries.contains("version.published  production  pending") && deliveries.contains("1: no answer (connectionFailed"))
        let json = try server.flagctl(["webhook", "deliveries", "1", "--json"], environment: admin)
        #expect(try JSONParser.parse(json.stdout).value.arrayValue?.first?["type"] == "version.published")

        let removed = try server.flagctl(["webhook", "remove", "1"], environment: admin)
        #expect(removed.stdout == "removed webhook 1 (http://127.0.0.1:9/hook); its pending deliveries will not be sent\n")
        #expect(try server.flagctl(["webhooks"], environment: admin).stdout == "no webhooks\n")
        let again = try server.flagctl(["webhook", "remove", "1"], environment: admin)
        #expect(again.status == 2 && again.stderr.contains("404 webhook_not_found"))
        let writer = try server.flagctl(["webhooks"])
        #expect(writer.status == 2 && writer.stderr.contains("403 forbidden"))
    }

    @Test func aDestinationInsideIsRefusedWithTheServersReason() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let admin = server.environment(token: .value(try server.token(name: "ops-admin", role: "admin")))
        let refused = try server.flagctl(["webhook", "add", "http://169.254.169.254/latest/meta-data/", "--events", "*"], environment: admin)
        #expect(refused.status == 2 && refused.stderr.contains("422 invalid_body"), "\(refused.stderr)")
        #expect(refused.stderr.contains("/url: 169.254.169.254 is 169.254.169.254 in 169.254.0.0/16, link-local"), "\(refused.stderr)")
        #expect(try server.flagctl(["webhooks"], environment: admin).stdout == "no webhooks\n")
    }

    @Test func aRefusedAttemptIsShownAsRefusedWithItsReason() {
        let delivery: JSONValue = ["id": 7, "eventId": "evt_1", "type": "version.published", "environment": "production", "status": "pending",
                                   "createdAt": "2026-12-06T08:00:00Z", "attempts": [
                                       ["number": 1, "responseStatus": nil, "refused": true,
                                        "error": "refused: rebind.example resolves to 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122)"],
                                       ["number": 2, "responseStatus": nil, "refused": false, "error": "timedOut: 5 s"],
                                       ["number": 3, "responseStatus": 204, "refused": false, "error": nil],
                                   ]]
        #expect(WebhookCommand.Deliveries.row(delivery).last == "1: refused (refused: rebind.example resolves to 127.0.0.1 in 127.0.0.0/8, "
            + "loopback (RFC 1122)), 2: no answer (timedOut: 5 s), 3: 204")
    }
}
