import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Deliveries: enqueueing to the matching webhooks, attempts, due ones after a restart, the delivery log.
@Suite struct FlagStoreWebhookDeliveriesTests {
    static func event(_ id: String = "evt_1", type: String = "version.published", environment: String? = "production",
                      at: Int64 = 1_000) -> WebhookEvent {
        WebhookEvent(id: id, type: type, environment: environment, payload: Array(#"{"id":"\#(id)"}"#.utf8),
                     createdAtMilliseconds: at)
    }

    @Test(arguments: StoreEngine.allCases) func anEventGoesToEveryWebhookThatReceivesItInOneStep(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let all = try store.createWebhook(url: "https://all.example", secret: "s", events: ["*"], actor: "admin")
        let production = try store.createWebhook(url: "https://p.example", secret: "s", events: ["version.published"],
                                                 environments: ["production"], actor: "admin")
        _ = try store.createWebhook(url: "https://s.example", secret: "s", events: ["*"], environments: ["staging"], actor: "admin")
        _ = try store.createWebhook(url: "https://r.example", secret: "s", events: ["request.created"], actor: "admin")
        let deliveries = try store.enqueueWebhookEvent(Self.event())
        #expect(deliveries.map(\.webhookID) == [all.id, production.id])
        #expect(deliveries.allSatisfy { $0.status == .pending && $0.attempts == 0 && $0.nextAttemptAtMilliseconds == 1_000 })
        #expect(deliveries.allSatisfy { $0.eventID == "evt_1" && $0.payload == Array(#"{"id":"evt_1"}"#.utf8) })
        // The same event again creates nothing; an event of no environment reaches only unlimited webhooks.
        #expect(try store.enqueueWebhookEvent(Self.event()).isEmpty)
        #expect(try store.enqueueWebhookEvent(Self.event("evt_2", type: "policy.updated", environment: nil)).map(\.webhookID)
            == [all.id])
        #expect(throws: FlagStoreError.invalidArgument(name: "type", reason: "unknown event type \"nope\"")) {
            try store.enqueueWebhookEvent(Self.event(type: "nope"))
        }
    }

    @Test(arguments: StoreEngine.allCases) func severalEventsAreEnqueuedTogetherOrNotAtAll(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let all = try store.createWebhook(url: "https://all.example", secret: "s", events: ["*"], actor: "admin")
        let staging = try store.createWebhook(url: "https://s.example", secret: "s", events: ["*"], environments: ["staging"], actor: "admin")
        let deliveries = try store.enqueueWebhookEvents([Self.event("evt_a"), Self.event("evt_b", environment: "staging"), Self.event("evt_a")])
        #expect(deliveries.map { "\($0.eventID)->\($0.webhookID)" } == ["evt_a->\(all.id)", "evt_b->\(all.id)", "evt_b->\(staging.id)"],
                "in order, each to its receivers, a repeated id once")
        #expect(throws: FlagStoreError.invalidArgument(name: "type", reason: "unknown event type \"nope\"")) {
            try store.enqueueWebhookEvents([Self.event("evt_c"), Self.event("evt_d", type: "nope")])
        }
        #expect(try store.pendingWebhookDeliveries(dueBy: .max).map(\.eventID) == ["evt_a", "evt_b", "evt_b"],
                "an invalid event refused the whole list: evt_c was not written")
        #expect(try store.enqueueWebhookEvents([]).isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func attemptsRetryDeliverAndAreRecordedOnce(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let webhook = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
        let delivery = try #require(try store.enqueueWebhookEvent(Self.event()).first)
        let retry = try store.recordWebhookAttempt(
            deliveryID: delivery.id, WebhookAttempt(number: 1, atMilliseconds: 1_000, responseStatus: 503, error: "status 503",
                                                    durationMilliseconds: 12), outcome: .retry(atMilliseconds: 2_000))
        #expect(retry.status == .pending && retry.attempts == 1 && retry.nextAttemptAtMilliseconds == 2_000)
        #expect(retry.lastStatus == 503 && retry.lastError == "status 503")
        #expect(try store.pendingWebhookDeliveries(dueBy: 1_999).isEmpty)
        #expect(try store.pendingWebhookDeliveries(dueBy: 2_000).map(\.id) == [delivery.id])
        #expect(try store.nextWebhookAttemptTime() == 2_000)
        // Attempt 1 again, or attempt 3, is refused: an attempt is recorded once, in order.
        for number in [1, 3] {
            #expect(throws: FlagStoreError.self) {
                try store.recordWebhookAttempt(deliveryID: delivery.id, WebhookAttempt(number: number, atMilliseconds: 2_000,
                                                                                      durationMilliseconds: 1), outcome: .delivered)
            }
        }
        let delivered = try store.recordWebhookAttempt(
            deliveryID: delivery.id, WebhookAttempt(number: 2, atMilliseconds: 2_000, responseStatus: 204, durationMilliseconds: 8),
            outcome: .delivered)
        #expect(delivered.status == .delivered && delivered.deliveredAtMilliseconds == 2_000 && delivered.nextAttemptAtMilliseconds == nil)
        #expect(try store.nextWebhookAttemptTime() == nil)
        #expect(throws: FlagStoreError.self) {
            try store.recordWebhookAttempt(deliveryID: delivery.id, WebhookAttempt(number: 3, atMilliseconds: 3_000,
                                                                                  durationMilliseconds: 1), outcome: .failed)
        }
        let log = try store.webhookDeliveries(webhookID: webhook.id)
        #expect(log.count == 1 && log[0].delivery == delivered)
        #expect(log[0].attempts == [
            WebhookAttempt(number: 1, atMilliseconds: 1_000, responseStatus: 503, error: "status 503", durationMilliseconds: 12),
            WebhookAttempt(number: 2, atMilliseconds: 2_000, responseStatus: 204, durationMilliseconds: 8),
        ])
        #expect(throws: FlagStoreError.webhookDeliveryNotFound(id: 99)) {
            try store.recordWebhookAttempt(deliveryID: 99, WebhookAttempt(number: 1, atMilliseconds: 0, durationMilliseconds: 0),
                                           outcome: .failed)
        }
    }

    @Test(arguments: StoreEngine.allCases) func aRefusedAttemptIsRecordedAsRefusedWithItsReason(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let webhook = try store.createWebhook(url: "http://rebinding.example/", secret: "s", events: ["*"], actor: "admin")
        let delivery = try #require(try store.enqueueWebhookEvent(Self.event()).first)
        let reason = "refused: rebinding.example resolves to 127.0.0.1, in 127.0.0.0/8, loopback (RFC 1122)"
        let refused = WebhookAttempt(number: 1, atMilliseconds: 1_000, error: reason, durationMilliseconds: 0, refused: true)
        let after = try store.recordWebhookAttempt(deliveryID: delivery.id, refused, outcome: .retry(atMilliseconds: 2_000))
        #expect(after.status == .pending && after.lastError == reason && after.lastStatus == nil)
        let sent = WebhookAttempt(number: 2, atMilliseconds: 2_000, responseStatus: 204, durationMilliseconds: 3)
        try store.recordWebhookAttempt(deliveryID: delivery.id, sent, outcome: .delivered)
        #expect(try store.webhookDeliveries(webhookID: webhook.id).first?.attempts == [refused, sent])
        #expect(try store.webhookDeliveries(webhookID: webhook.id).first?.attempts.map(\.refused) == [true, false])
    }

    /// A file of schema 3 (before refused attempts) keeps its attempts, each read as not refused.
    @Test func attemptsOfAnOlderFileAreReadAsNotRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        do {
            let database = try SQLiteConnection(path: path)
            defer { database.close() }
            _ = try database.setJournalMode("WAL")
            try SQLiteMigrations.migrate(database, path: path, through: 3)
            try database.run("""
                INSERT INTO webhooks (url, secret, events, created_at, created_by) VALUES ('https://a.example', 's', '["*"]', 1, 'admin')
                """)
            try database.run("""
                INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
                VALUES (1, 'evt_1', 'version.published', X'7B7D', 'pending', 1, 5000, 1)
                """)
            try database.run("INSERT INTO webhook_attempts (delivery_id, number, at, error, duration_ms) VALUES (1, 1, 2, 'HTTP 500', 7)")
        }
        let store = try FlagStore.open(location: path)
        defer { store.close() }
        #expect(try store.webhookDeliveries(webhookID: 1).first?.attempts
                == [WebhookAttempt(number: 1, atMilliseconds: 2, error: "HTTP 500", durationMilliseconds: 7)])
    }

    @Test(arguments: StoreEngine.allCases) func aFailedDeliveryStopsAndPendingOnesSurviveAReopen(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let path = try engine.location(directory)
        let store = try FlagStore.open(location: path)
        _ = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
        let first = try #require(try store.enqueueWebhookEvent(Self.event("evt_a", at: 500)).first)
        let second = try #require(try store.enqueueWebhookEvent(Self.event("evt_b", at: 400)).first)
        let failed = try store.recordWebhookAttempt(deliveryID: first.id, WebhookAttempt(number: 1, atMilliseconds: 600,
            error: "connection refused", durationMilliseconds: 1), outcome: .failed)
        #expect(failed.status == .failed && failed.nextAttemptAtMilliseconds == nil)
        store.close()
        let reopened = try FlagStore.open(location: path)
        #expect(try reopened.pendingWebhookDeliveries(dueBy: 10_000).map(\.id) == [second.id])
    }

    @Test(arguments: StoreEngine.allCases) func theLogPagesNewestFirst(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let webhook = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
        let ids = try (0..<5).map { try #require(try store.enqueueWebhookEvent(Self.event("evt_\($0)")).first).id }
        let page = try store.webhookDeliveries(webhookID: webhook.id, limit: 2)
        #expect(page.map(\.delivery.id) == [ids[4], ids[3]])
        #expect(try store.webhookDeliveries(webhookID: webhook.id, limit: 10, before: ids[3]).map(\.delivery.id)
            == [ids[2], ids[1], ids[0]])
        #expect(throws: FlagStoreError.webhookNotFound(id: 42)) { try store.webhookDeliveries(webhookID: 42) }
        #expect(throws: FlagStoreError.self) { try store.webhookDeliveries(webhookID: webhook.id, limit: 0) }
    }
}
