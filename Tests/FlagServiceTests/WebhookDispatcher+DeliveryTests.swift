import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import Synchronization
import Testing
@testable import FlagService

/// Every attempt checks its destination again: a name that resolves inside now (DNS rebinding) is refused and
/// recorded as refused, nothing is sent, and the normal retry policy applies; an address that passes is the one
/// the request is pinned to.
@Suite struct WebhookDispatcherDeliveryTests {
    typealias FakeTransport = WebhookDispatcherTests.FakeTransport

    /// A resolver whose n-th answer for any name is `answers[n]` (the last one repeated).
    static func rebinding(_ answers: [String]) -> WebhookDestinationPolicy {
        let calls = Atomic(0)
        return WebhookDestinationPolicy { _ throws(HostResolverError) in
            let index = calls.add(1, ordering: .relaxed).oldValue
            return [answers[min(index, answers.count - 1)]].compactMap { IPAddress($0) }
        }
    }

    @Test func aNameThatResolvesInsideAtDeliveryIsRefusedRecordedAndRetried() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "https://rebind.example/hook", secret: "s", events: ["*"], actor: "admin")
            // Public, then the loopback, then public again: the attempt in the middle must not go out.
            let policy = Self.rebinding(["127.0.0.1", "93.184.215.14"])
            let transport = FakeTransport { _ in 204 }
            let (dispatcher, metrics) = WebhookDispatcherTests.dispatcher(store, transport: transport, destinations: policy)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            let log = try await WebhookDispatcherTests.poll(store, webhook.id) { $0.delivery.status == .delivered }
            #expect(log.attempts.map(\.refused) == [true, false])
            let reason = try #require(log.attempts.first?.error)
            #expect(reason == "refused: rebind.example resolves to 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122): webhooks are not sent "
                + "to addresses inside (flagserver --webhook-allow-network allows a network on purpose)")
            #expect(log.attempts.first?.responseStatus == nil && log.attempts.last?.responseStatus == 204)
            let sent = transport.sent.withLock { $0 }
            #expect(sent.count == 1 && sent.first?.connectAddress == "93.184.215.14", "only the checked public address was sent to")
            #expect(sent.first?.url.absoluteString == "https://rebind.example/hook", "the URL (Host, TLS name) is unchanged")
            #expect(metrics.webhookRefused.load(ordering: .relaxed) == 1 && metrics.webhookRetried.load(ordering: .relaxed) == 1)
            #expect(metrics.render(snapshots: [:], server: nil).contains("flagserver_webhook_refusals_total 1\n"))
        }
    }

    @Test func aDestinationRefusedOnEveryAttemptFailsAfterTheLastOne() async throws {
        try await withTemporaryStore { store in
            // Registered before the policy (or allowed then, and the allow list gone after a restart).
            let webhook = try store.createWebhook(url: "http://169.254.169.254/latest/meta-data/", secret: "s", events: ["*"], actor: "admin")
            let transport = FakeTransport { _ in 200 }
            let (dispatcher, metrics) = WebhookDispatcherTests.dispatcher(store, transport: transport, destinations: WebhookDestinationPolicy())
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            let log = try await WebhookDispatcherTests.poll(store, webhook.id) { $0.delivery.status == .failed }
            #expect(log.attempts.count == 3 && log.attempts.allSatisfy { $0.refused && $0.error?.contains("169.254.0.0/16, link-local") == true })
            #expect(log.delivery.lastError?.hasPrefix("refused: 169.254.169.254 is 169.254.169.254 in 169.254.0.0/16") == true)
            #expect(transport.sent.withLock { $0.isEmpty }, "nothing was sent")
            #expect(metrics.webhookRefused.load(ordering: .relaxed) == 3 && metrics.webhookFailed.load(ordering: .relaxed) == 1)
        }
    }

    @Test func aNameWithSeveralAddressesIsSentToAnotherCheckedOneOnEachAttempt() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "https://multi.example/hook", secret: "s", events: ["*"], actor: "admin")
            let policy = WebhookDestinationPolicy { _ throws(HostResolverError) in
                ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"].compactMap { IPAddress($0) }
            }
            let transport = FakeTransport { attempt in attempt < 3 ? 503 : 200 }
            let (dispatcher, _) = WebhookDispatcherTests.dispatcher(store, transport: transport, destinations: policy)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            _ = try await WebhookDispatcherTests.poll(store, webhook.id) { $0.delivery.status == .delivered }
            #expect(transport.sent.withLock { $0.map(\.connectAddress) } == ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "93.184.215.14"])
        }
    }

    @Test func aNameThatDoesNotResolveIsAnOrdinaryFailure() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "https://gone.example/hook", secret: "s", events: ["*"], actor: "admin")
            let policy = WebhookDestinationPolicy { host throws(HostResolverError) in
                throw HostResolverError(host: host, code: -2, errno: nil, message: "Name or service not known")
            }
            let transport = FakeTransport { _ in 200 }
            let (dispatcher, _) = WebhookDispatcherTests.dispatcher(store, transport: transport, destinations: policy)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            let log = try await WebhookDispatcherTests.poll(store, webhook.id) { $0.delivery.status == .failed }
            #expect(log.attempts.map(\.error) == Array(repeating: "cannot resolve gone.example: Name or service not known (EAI -2)", count: 3))
            #expect(log.attempts.allSatisfy { !$0.refused } && transport.sent.withLock { $0.isEmpty })
        }
    }
}
