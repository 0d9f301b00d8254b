import FlagKit
import FlagService
import FlagServiceTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Webhooks of the real `flagserver` process, with real time and a real receiver on 127.0.0.1: a flip is
/// delivered signed; a 500 is retried and both attempts are in the delivery log; a receiver that never
/// answers does not slow flips; a pending delivery resumes after a restart.
@Suite struct FlagServerWebhookProcessTests {
    /// A running server with an admin token (made by `flagserver token create` before it starts).
    struct Running {
        let server: FlagServerProcess
        let port: Int
        let admin: String
        let writer: String

        func request(_ method: String, _ path: String, json: String? = nil, token: String? = nil,
                     headers: [(String, String)] = []) async throws -> RawHTTPResponse {
            var all = headers + [("Authorization", "Bearer \(token ?? admin)")]
            if json != nil { all.append(("Content-Type", "application/json")) }
            return try await RawHTTP.request(port: port, method: method, path: path, headers: all, body: json.map { Array($0.utf8) })
        }

        /// Registers `url` for `events` of production with `secret`; the webhook's id.
        func register(_ url: String, secret: String, events: String = #"["version.published"]"#) async throws -> Int64 {
            let created = try await request("POST", "/v1/webhooks",
                                            json: #"{"url": "\#(url)", "events": \#(events), "environments": ["production"], "secret": "\#(secret)"}"#)
            guard created.status == 201, let id = try created.json()["id"]?.integerValue else {
                throw TestFailure("webhook not created: \(created.status) \(created.text)")
            }
            return id
        }

        /// Flips `showIntroFreeSubscriptionBanner` in production (a flag its policy does not protect: a flip publishes); the response.
        func flip(_ value: Bool) async throws -> RawHTTPResponse {
            try await request("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: value ? "true" : "false", token: writer,
                              headers: [("X-Change-Message", "webhook test")])
        }

        /// The delivery log of webhook `id` once `done` holds for its newest delivery (polling, 15 s at most).
        func deliveries(_ id: Int64, until done: (JSONValue) -> Bool) async throws -> JSONValue {
            let deadline = Date().addingTimeInterval(15)
            var last: JSONValue = .null
            while Date() < deadline {
                last = try await request("GET", "/v1/webhooks/\(id)/deliveries").json()
                if let newest = last["deliveries"]?.arrayValue?.first, done(newest) { return newest }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("delivery log of webhook \(id) not as expected after 15 s: \(last)")
        }
    }

    /// The receivers' network, allowed explicitly (`--webhook-allow-network`): by default nothing inside is.
    static let receivers = ["127.0.0.0/8"]

    static func start(_ directory: String, retryBaseMilliseconds: Int = 200, allow networks: [String] = receivers) async throws -> Running {
        var tokens: [String] = []
        for (name, role) in [("ops-admin", "admin"), ("ops-writer", "writer")] {
            let created = try await FlagServerProcess.run(["token", "create", "--name", name, "--role", role, "--database", "db.sqlite"],
                                                      directory: directory)
            if created.status == 0, let secret = created.stdout.split(separator: "\n").first(where: { $0.hasPrefix("sfl_") }) {
                tokens.append(String(secret))
            }
        }
        return try await restart(directory, tokens: tokens, retryBaseMilliseconds: retryBaseMilliseconds, allow: networks)
    }

    /// A server on the same database with tokens made before.
    static func restart(_ directory: String, tokens: [String], retryBaseMilliseconds: Int = 200,
                        allow networks: [String] = receivers) async throws -> Running {
        guard tokens.count == 2 else { throw TestFailure("tokens not created") }
        let server = try FlagServerProcess(["--port", "0", "--database", "db.sqlite", "--flags-dir", FlagServerProcessTests.flagsDirectory,
                                            "--webhook-retry-base-ms", String(retryBaseMilliseconds)]
                                               + networks.flatMap { ["--webhook-allow-network", $0] }, directory: directory)
        return Running(server: server, port: try await server.waitUntilReady(), admin: tokens[0], writer: tokens[1])
    }

    @Test func aFlipIsDeliveredSignedToAReceiverOnLoopback() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let running = try await Self.start(directory)
        defer { running.server.blockingStop() }
        _ = try await running.register(receiver.url, secret: "whsec_process")
        let flip = try await running.flip(false)
        #expect(flip.status == 200)
        let delivery = try #require(try await receiver.waitFor(1).first)
        let signature = try #require(delivery.header(APIHeader.webhookSignature))
        let now = Int64(Date().timeIntervalSince1970)
        #expect(WebhookSignature.isValid(header: signature, body: delivery.body, secret: "whsec_process", now: now, tolerance: 60),
                "the HMAC of t, a dot and the body, with a t of now")
        #expect(!WebhookSignature.isValid(header: signature, body: delivery.body, secret: "whsec_other", now: now))
        let body = try delivery.json()
        #expect(body["type"] == "version.published" && body["environment"] == "production")
        #expect(body["data"]?["version"] == 2 && body["data"]?["author"] == "ops-writer" && body["data"]?["message"] == "webhook test")
        #expect(body["data"]?["etag"] == .string(flip.header("ETag") ?? "missing"))
        #expect(delivery.header(APIHeader.webhookID) == body["id"]?.stringValue && delivery.header(APIHeader.webhookAttempt) == "1")
        #expect(delivery.header(APIHeader.webhookEvent) == "version.published")
        #expect(delivery.header("Content-Type") == "application/json")
    }

    @Test func aReceiverAnswering500GetsItAgainAndTheLogShowsBothAttempts() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver { $0 == 1 ? 500 : 200 }
        defer { receiver.stop() }
        let running = try await Self.start(directory, retryBaseMilliseconds: 100)
        defer { running.server.blockingStop() }
        let id = try await running.register(receiver.url, secret: "whsec_retry")
        #expect(try await running.flip(false).status == 200)
        let both = try await receiver.waitFor(2)
        #expect(both.map { $0.header(APIHeader.webhookAttempt) } == ["1", "2"])
        #expect(both[0].header(APIHeader.webhookID) == both[1].header(APIHeader.webhookID), "the same event id: receivers de-duplicate")
        #expect(both[0].body == both[1].body, "the same bytes, signed again with the attempt's time")
        #expect(both[1].receivedAt.timeIntervalSince(both[0].receivedAt) >= 0.07, "after the backoff (100 ms, jitter ±20 %)")
        let log = try await running.deliveries(id) { $0["status"] == "delivered" }
        #expect(log["attempts"]?.arrayValue?.map { $0["responseStatus"] } == [500, 200])
        #expect(log["attempts"]?.arrayValue?.map { $0["error"] } == ["HTTP 500", .null])
        #expect(log["type"] == "version.published" && log["deliveredAt"]?.stringValue != nil)
    }

    @Test(.timeLimit(.minutes(2))) func aReceiverThatNeverAnswersDoesNotSlowFlips() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver { _ in nil }
        defer { receiver.stop() }
        let running = try await Self.start(directory)
        defer { running.server.blockingStop() }
        let id = try await running.register(receiver.url, secret: "whsec_silent")
        // Ten flips, each announced to a receiver that holds every delivery until the sender's 5 s timeout. A publish
        // that waited for its webhooks would be answered only after its own delivery's attempt had ended; so each
        // flip's delivery must still be without an ended attempt when the flip is answered.
        for index in 0..<10 {
            #expect(try await running.flip(!index.isMultiple(of: 2)).status == 200)  // false first: it is true
            // The log before the receiver: an attempt that ended had reached the receiver first.
            let ended = try await running.request("GET", "/v1/webhooks/\(id)/deliveries").json()["deliveries"]?.arrayValue?
                .filter { $0["attempts"]?.arrayValue?.isEmpty == false }.compactMap { $0["eventId"]?.stringValue } ?? []
            let own = receiver.deliveries.compactMap { try? $0.json() }
                .filter { $0["data"]?["version"] == .integer(Int64(index + 2)) }.compactMap { $0["id"]?.stringValue }
            #expect(Set(ended).isDisjoint(with: own), "flip \(index + 1) was answered after its delivery's attempt ended")
        }
        _ = try await receiver.waitFor(1)
        // Each version's event reaches the store after its flip was answered (the dispatcher's thread writes it).
        var log: JSONValue = .null
        let deadline = Date().addingTimeInterval(60)
        while log["deliveries"]?.arrayValue?.count != 10, Date() < deadline {
            log = try await running.request("GET", "/v1/webhooks/\(id)/deliveries").json()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(log["deliveries"]?.arrayValue?.count == 10)
        #expect(log["deliveries"]?.arrayValue?.allSatisfy { $0["status"] == "pending" } == true, "waiting for the receiver, not for the flips")
        // Attempts still hang on the receiver: SIGTERM abandons them (they stay pending) instead of waiting for the
        // sender's 5 s timeout. Sent while a fresh attempt is under way, it must end the process before that attempt
        // would have timed out (4.5 s: the attempt's clock started a moment before its request arrived).
        let arrived = receiver.deliveries.count
        let fresh = try await receiver.waitFor(arrived + 1)[arrived].receivedAt
        await running.server.stop()
        #expect(Date().timeIntervalSince(fresh) < 4.5, "the stop waited for the attempt in flight")
        #expect(running.server.process.terminationStatus == 0)
    }

    @Test func aPendingDeliveryResumesAfterARestart() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try WebhookReceiver { $0 == 1 ? 503 : 200 }
        defer { receiver.stop() }
        // A base of 2 s: the retry falls due while the server is down.
        let first = try await Self.start(directory, retryBaseMilliseconds: 2000)
        let id = try await first.register(receiver.url, secret: "whsec_restart")
        #expect(try await first.flip(false).status == 200)
        _ = try await first.deliveries(id) { $0["attempts"]?.arrayValue?.count == 1 }
        await first.server.stop()
        #expect(first.server.process.terminationStatus == 0)
        #expect(receiver.deliveries.count == 1)
        let second = try await Self.restart(directory, tokens: [first.admin, first.writer], retryBaseMilliseconds: 2000)
        defer { second.server.blockingStop() }
        let both = try await receiver.waitFor(2)
        #expect(both[1].header(APIHeader.webhookAttempt) == "2" && both[1].header(APIHeader.webhookID) == both[0].header(APIHeader.webhookID))
        let log = try await second.deliveries(id) { $0["status"] == "delivered" }
        #expect(log["attempts"]?.arrayValue?.map { $0["responseStatus"] } == [503, 200])
    }
}
