import ClientHTTP
import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import FlagService

/// The dispatcher with a transport of the test's: the bounded queue, who gets an event, signed attempts,
/// retries, resuming what the store holds, and a prompt stop while a receiver hangs.
@Suite struct WebhookDispatcherTests {
    /// Answers each request with `answer(attempt number)`, recording what was sent.
    final class FakeTransport: HTTPTransport {
        let sent = Mutex<[ClientRequest]>([])
        let answer: @Sendable (Int) async throws(TransportError) -> Int

        init(answer: @escaping @Sendable (Int) async throws(TransportError) -> Int) { self.answer = answer }

        func send(_ request: ClientRequest) async throws(TransportError) -> ClientHTTP.ClientResponse {
            let count = sent.withLock { sent in
                sent.append(request)
                return sent.count
            }
            return ClientHTTP.ClientResponse(status: try await answer(count), headers: ClientHeaders(), body: Data())
        }

        func stream(_ request: ClientRequest, onBytes: @escaping @Sendable ([UInt8]) -> Bool) async throws(TransportError) -> Int { 405 }
    }

    static func dispatcher(_ store: FlagStore, capacity: Int = 1024, transport: FakeTransport,
                           destinations: WebhookDestinationPolicy = .testReceivers) -> (WebhookDispatcher, ServiceMetrics) {
        var options = WebhookDispatcher.Options()
        options.queueCapacity = capacity
        options.destinations = destinations
        options.retry = WebhookRetryPolicy(baseMilliseconds: 20, maximumAttempts: 3)
        let metrics = ServiceMetrics()
        return (WebhookDispatcher(store: store, metrics: metrics, logger: ServiceLogger(minimumLevel: .off), options: options,
                                  transport: transport), metrics)
    }

    static let ok = FakeTransport { _ in 200 }

    @Test func nothingIsQueuedWhileNoWebhookWantsTheEvent() throws {
        try withTemporaryStore { store in
            let (none, _) = Self.dispatcher(store, transport: Self.ok)
            none.submit("version.published", environment: "production", data: [:])
            #expect(none.state.withLock { $0.events.isEmpty }, "no webhook at all: one atomic load, nothing queued")
            _ = try store.createWebhook(url: "https://s.example", secret: "s", events: ["*"], environments: ["staging"], actor: "admin")
            _ = try store.createWebhook(url: "https://r.example", secret: "s", events: ["request.created"], actor: "admin")
            let (dispatcher, _) = Self.dispatcher(store, transport: Self.ok)
            dispatcher.submit("version.published", environment: "production", data: [:])
            dispatcher.submit("policy.updated", environment: nil, data: [:])
            #expect(dispatcher.state.withLock { $0.events.isEmpty }, "webhooks of other events or environments")
            dispatcher.submit("version.published", environment: "staging", data: [:])
            #expect(dispatcher.state.withLock { $0.events.map(\.type) } == ["version.published"])
        }
    }

    @Test func aFullQueueDropsAndCountsEventsWithoutBlocking() throws {
        try withTemporaryStore { store in
            _ = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
            let (dispatcher, metrics) = Self.dispatcher(store, capacity: 3, transport: Self.ok)
            for index in 0..<5 { dispatcher.submit("version.published", environment: "production", data: ["version": .integer(Int64(index))]) }
            #expect(dispatcher.state.withLock { $0.events.map { $0.data["version"] } } == [0, 1, 2], "the oldest are kept")
            #expect(dispatcher.state.withLock { $0.dropped } == 2)
            #expect(metrics.webhookEventsDropped.load(ordering: .relaxed) == 2)
            #expect(metrics.render(snapshots: [:], server: nil).contains("flagserver_webhook_events_total{outcome=\"dropped\"} 2"))
        }
    }

    @Test func aPublishedVersionCarriesItsMetadata() throws {
        try withTemporaryStore { store in
            _ = try store.createWebhook(url: "https://a.example", secret: "s", events: ["version.published"], actor: "admin")
            let (dispatcher, _) = Self.dispatcher(store, transport: Self.ok)
            let record = try store.publish(environment: "production", document: Array(#"{"flags":{}}"#.utf8), author: "ops",
                                           message: "m").record
            let snapshot = try Snapshot(record: record)
            dispatcher.versionPublished(snapshot, changeID: 12)
            let event = try #require(dispatcher.state.withLock { $0.events.first })
            #expect(event.type == "version.published" && event.environment == "production")
            #expect(event.data == ["version": 1, "etag": .string(snapshot.etag), "author": "ops", "message": "m", "changeId": 12,
                                   "publishedAt": .string(RFC3339.string(milliseconds: record.createdAtMilliseconds))])
            #expect(event.atMilliseconds == record.createdAtMilliseconds)
        }
    }

    @Test func thePayloadIsCanonicalJSONBuiltOnce() {
        let event = WebhookDispatcher.Event(type: "version.published", environment: "production",
                                            data: ["version": 9, "author": "ops"], atMilliseconds: 1_772_319_600_012)
        #expect(String(decoding: WebhookDispatcher.payload(id: "evt_X", event), as: UTF8.self)
            == #"{"createdAt":"2026-02-28T23:00:00.012Z","data":{"author":"ops","version":9},"environment":"production","id":"evt_X","type":"version.published"}"#
            + "\n")
        let global = WebhookDispatcher.Event(type: "policy.updated", environment: nil, data: [:], atMilliseconds: 0)
        #expect(String(decoding: WebhookDispatcher.payload(id: "evt_Y", global), as: UTF8.self).contains(#""environment":null"#))
    }

    @Test func signsEachAttemptRetriesAFailureAndLogsBoth() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "http://127.0.0.1:9/hook", secret: "whsec_k", events: ["*"], actor: "admin")
            let transport = FakeTransport { attempt in attempt == 1 ? 500 : 204 }
            let (dispatcher, metrics) = Self.dispatcher(store, transport: transport)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: ["version": 2])
            let log = try await Self.poll(store, webhook.id) { $0.delivery.status == .delivered }
            #expect(log.attempts.map(\.responseStatus) == [500, 204])
            #expect(log.attempts.map(\.error) == ["HTTP 500", nil])
            let requests = transport.sent.withLock { $0 }
            #expect(requests.count == 2)
            for (index, request) in requests.enumerated() {
                #expect(request.method == .post && request.url.absoluteString == "http://127.0.0.1:9/hook")
                #expect(request.connectAddress == "127.0.0.1", "connected to the address that was checked")
                #expect(request.headers[APIHeader.webhookAttempt] == String(index + 1))
                #expect(request.headers[APIHeader.webhookID] == log.delivery.eventID, "the same id on every attempt")
                #expect(request.headers[APIHeader.webhookEvent] == "version.published")
                #expect(request.headers["Content-Type"] == "application/json")
                let body = [UInt8](request.body ?? Data())
                #expect(body == log.delivery.payload)
                let signature = try #require(request.headers[APIHeader.webhookSignature])
                #expect(WebhookSignature.isValid(header: signature, body: body, secret: "whsec_k", now: Int64(Date().timeIntervalSince1970)))
            }
            #expect(metrics.webhookRetried.load(ordering: .relaxed) == 1 && metrics.webhookDelivered.load(ordering: .relaxed) == 1)
        }
    }

    @Test func givesUpAfterTheLastAttemptAndNeverFollowsRedirects() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "http://127.0.0.1:9/hook", secret: "s", events: ["*"], actor: "admin")
            let transport = FakeTransport { attempt throws(TransportError) in
                if attempt == 2 { throw TransportError(kind: .connectionFailed, message: "refused", url: "http://127.0.0.1:9/hook") }
                return 302
            }
            let (dispatcher, metrics) = Self.dispatcher(store, transport: transport)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            let log = try await Self.poll(store, webhook.id) { $0.delivery.status == .failed }
            #expect(log.attempts.map(\.error) == ["HTTP 302: redirects are not followed", "connectionFailed: refused",
                                                  "HTTP 302: redirects are not followed"])
            #expect(log.delivery.nextAttemptAtMilliseconds == nil && metrics.webhookFailed.load(ordering: .relaxed) == 1)
        }
    }

    @Test func aRequestTheClientRefusesToSendFailsAtOnce() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "http://127.0.0.1:9/hook", secret: "s", events: ["*"], actor: "admin")
            // What the transports refuse before sending (a URL or header they cannot put on the wire) can never succeed.
            let transport = FakeTransport { _ throws(TransportError) in
                throw TransportError(kind: .invalidRequest, message: "only absolute http and https URLs are supported", url: "")
            }
            let (dispatcher, _) = Self.dispatcher(store, transport: transport)
            dispatcher.start()
            defer { dispatcher.stop() }
            dispatcher.submit("version.published", environment: "production", data: [:])
            let log = try await Self.poll(store, webhook.id) { $0.delivery.status != .pending }
            #expect(log.delivery.status == .failed && log.attempts.count == 1, "not retried (3 attempts were allowed)")
            #expect(log.attempts.first?.error == "invalidRequest: only absolute http and https URLs are supported")
        }
    }

    @Test func resumesWhatTheStoreHoldsWhenItStarts() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "http://127.0.0.1:9/hook", secret: "s", events: ["*"], actor: "admin")
            _ = try store.enqueueWebhookEvent(WebhookEvent(id: "evt_old", type: "version.published", environment: "production",
                                                            payload: Array("{}".utf8), createdAtMilliseconds: 1))
            let (dispatcher, _) = Self.dispatcher(store, transport: Self.ok)
            dispatcher.start()
            defer { dispatcher.stop() }
            let log = try await Self.poll(store, webhook.id) { $0.delivery.status == .delivered }
            #expect(log.delivery.eventID == "evt_old")
        }
    }

    @Test func stopsPromptlyWhileAReceiverHangsAndLeavesTheDeliveryPending() async throws {
        try await withTemporaryStore { store in
            let webhook = try store.createWebhook(url: "http://127.0.0.1:9/hook", secret: "s", events: ["*"], actor: "admin")
            let transport = FakeTransport { _ throws(TransportError) in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    throw TransportError(kind: .cancelled, message: "cancelled", url: "")
                }
                return 200
            }
            let (dispatcher, _) = Self.dispatcher(store, transport: transport)
            dispatcher.start()
            dispatcher.submit("version.published", environment: "production", data: [:])
            let deadline = Date().addingTimeInterval(15)
            while transport.sent.withLock({ $0.isEmpty }) && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(transport.sent.withLock { $0.count } == 1, "the attempt is under way")
            let started = Date()
            try await offPool { dispatcher.stop() }
            // The receiver hangs 30 s; 10 s leaves room for a loaded machine and still fails a stop that waits for it.
            #expect(Date().timeIntervalSince(started) < 10, "stop does not wait for the receiver")
            let log = try #require(try store.webhookDeliveries(webhookID: webhook.id).first)
            #expect(log.delivery.status == .pending && log.attempts.isEmpty, "resumed with attempt 1 after a restart")
        }
    }

    /// The newest delivery of `webhook` once `done` holds. Attempts run as tasks on Swift's cooperative pool (the
    /// transport's API is async), which a parallel test run keeps busy: hence the generous bound.
    static func poll(_ store: FlagStore, _ webhook: Int64, until done: (WebhookDeliveryLog) -> Bool) async throws -> WebhookDeliveryLog {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let log = try store.webhookDeliveries(webhookID: webhook).first, done(log) { return log }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("delivery not done after 15 s: \(try store.webhookDeliveries(webhookID: webhook).map(\.attempts))")
    }
}
