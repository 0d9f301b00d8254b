import FlagKit
import Foundation
import TestSupport
import Testing

/// The real `flagserver` refuses webhooks inside (here: a real receiver on 127.0.0.1) unless
/// `--webhook-allow-network` allows its network: at registration with 422 and the reason, and at delivery
/// (after a restart without the option) with the attempt logged as refused and nothing sent.
@Suite struct FlagServerWebhookDestinationProcessTests {
    typealias Webhooks = FlagServerWebhookProcessTests

    @Test func aLoopbackReceiverIsRefusedWithoutTheOptionAndDeliveredToWithIt() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let strict = try await Webhooks.start(directory, allow: [])
        let refused = try await strict.request("POST", "/v1/webhooks", json: #"{"url": "\#(receiver.url)", "events": ["version.published"]}"#)
        #expect(refused.status == 422)
        let detail = try refused.json()["error"]?["details"]?.arrayValue?.first
        #expect(try refused.json()["error"]?["code"] == "invalid_body" && detail?["path"] == "/url")
        #expect(detail?["message"]?.stringValue?.hasPrefix("127.0.0.1 is 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122): webhooks are not sent") == true,
                "\(refused.text)")
        for trick in ["http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://localhost./",
                      "http://127.1/", "http://169.254.169.254/latest/meta-data/"] {
            let response = try await strict.request("POST", "/v1/webhooks", json: #"{"url": "\#(trick)", "events": ["*"]}"#)
            #expect(response.status == 422 && response.text.contains("webhooks are not sent to addresses inside"), "\(trick): \(response.text)")
        }
        await strict.server.stop()

        let allowing = try await Webhooks.restart(directory, tokens: [strict.admin, strict.writer], allow: ["127.0.0.0/8"])
        defer { allowing.server.blockingStop() }
        let id = try await allowing.register(receiver.url, secret: "whsec_allowed")
        #expect(try await allowing.flip(false).status == 200)
        let delivery = try #require(try await receiver.waitFor(1).first)
        #expect(try delivery.json()["type"] == "version.published")
        let log = try await allowing.deliveries(id) { $0["status"] == "delivered" }
        #expect(log["attempts"]?.arrayValue?.map { $0["refused"] } == [false])
    }

    @Test func aWebhookAllowedOnceIsRefusedAtDeliveryWhenTheOptionIsGoneAndLoggedAsRefused() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let first = try await Webhooks.start(directory)
        let id = try await first.register(receiver.url, secret: "whsec_then")
        await first.server.stop()
        let strict = try await Webhooks.restart(directory, tokens: [first.admin, first.writer], allow: [])
        defer { strict.server.blockingStop() }
        #expect(try await strict.flip(false).status == 200)
        // Two refused attempts (a retry after 200 ms): each is recorded, and neither reached the receiver.
        let log = try await strict.deliveries(id) { ($0["attempts"]?.arrayValue?.count ?? 0) >= 2 }
        let attempts = try #require(log["attempts"]?.arrayValue)
        #expect(attempts.allSatisfy { $0["refused"] == true && $0["responseStatus"] == .null })
        #expect(attempts.first?["error"]?.stringValue?.hasPrefix("refused: 127.0.0.1 is 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122)") == true,
                "\(attempts)")
        #expect(log["status"] == "pending", "retried like any failure until the last attempt")
        #expect(receiver.deliveries.isEmpty, "nothing was sent")
        let metrics = try await RawHTTP.request(port: strict.port, method: "GET", path: "/metrics").text
        #expect(metrics.contains("flagserver_webhook_refusals_total "), "\(metrics.count) bytes of metrics")
        #expect(!metrics.contains("flagserver_webhook_refusals_total 0\n"))
    }

    @Test func anInvalidNetworkIsAUsageError() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await FlagServerProcess.run(["--webhook-allow-network", "10.0.0.1/8", "--database", "db.sqlite"], directory: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--webhook-allow-network: '10.0.0.1/8' is not a network (CIDR such as 10.0.0.0/8 or fc00::/7): "
            + "bits are set past the prefix length (the block is 10.0.0.0/8)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/db.sqlite"), "refused before anything was opened")
    }
}
