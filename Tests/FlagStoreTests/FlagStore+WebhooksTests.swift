import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Registered webhooks: creation with checks, listing without secrets, soft deletion.
@Suite struct FlagStoreWebhooksTests {
    @Test(arguments: StoreEngine.allCases) func createdWebhookListsWithoutItsSecretAndAuditsWithoutIt(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let path = try engine.location(directory)
        let store = try FlagStore.open(location: path)
        let secret = FlagStore.generateWebhookSecret()
        let webhook = try store.createWebhook(url: "https://hooks.example/symi", secret: secret,
                                              events: ["version.published", "request.created", "version.published"],
                                              environments: ["production"], actor: "admin", client: "192.0.2.3")
        #expect(webhook.events == ["request.created", "version.published"] && webhook.environments == ["production"])
        #expect(webhook.isActive && webhook.createdBy == "admin")
        #expect(try store.webhooks() == [webhook])
        #expect(try store.webhook(id: webhook.id) == webhook)
        #expect(try store.webhookEndpoint(id: webhook.id) == WebhookEndpoint(record: webhook, secret: secret))
        let audit = try #require(try store.auditEntries().first)
        #expect(audit.action == "webhook.create" && audit.target == String(webhook.id))
        #expect(audit.detail == "url https://hooks.example/symi events request.created,version.published environments production")
        #expect(!audit.detail.contains(secret))
        #expect(secret.hasPrefix("whsec_") && secret.utf8.count == 6 + 43 && FlagStore.generateWebhookSecret() != secret)
    }

    @Test(arguments: [
        ("ftp://x", FlagStoreError.invalidArgument(name: "url", reason: "must start with https:// or http://")),
        ("https://", FlagStoreError.invalidArgument(name: "url", reason: "has no host")),
        ("https:///path", FlagStoreError.invalidArgument(name: "url", reason: "has no host")),
        ("https://a b", FlagStoreError.invalidArgument(name: "url", reason: "must not contain spaces or control characters")),
        ("https://x/" + String(repeating: "a", count: 2000), FlagStoreError.invalidArgument(name: "url", reason: "longer than 2000 bytes")),
    ])
    func badURLsAreRefused(url: String, error: FlagStoreError) throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        #expect(throws: error) { try store.createWebhook(url: url, secret: "s", events: ["*"], actor: "admin") }
        #expect(try store.webhooks(includeDeleted: true).isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func badEventsSecretsAndEnvironmentsAreRefused(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let url = "http://127.0.0.1:9/hook"
        #expect(throws: FlagStoreError.invalidArgument(name: "events", reason: "must name at least one event or \"*\"")) {
            try store.createWebhook(url: url, secret: "s", events: [], actor: "admin")
        }
        #expect(throws: FlagStoreError.self) { try store.createWebhook(url: url, secret: "s", events: ["version.publish"], actor: "admin") }
        #expect(throws: FlagStoreError.invalidArgument(name: "secret", reason: "must be 1-200 bytes")) {
            try store.createWebhook(url: url, secret: "", events: ["*"], actor: "admin")
        }
        #expect(throws: FlagStoreError.unknownEnvironment("qa", known: ["production", "staging"])) {
            try store.createWebhook(url: url, secret: "s", events: ["*"], environments: ["qa"], actor: "admin")
        }
        #expect(try store.webhooks(includeDeleted: true).isEmpty && store.auditEntries().isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func deletionIsSoftFailsPendingDeliveriesAndHappensOnce(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let webhook = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
        let kept = try store.createWebhook(url: "https://b.example", secret: "s", events: ["*"], actor: "admin")
        let deliveries = try store.enqueueWebhookEvent(WebhookEvent(id: "evt_1", type: "policy.updated", environment: nil,
                                                                    payload: Array("{}".utf8), createdAtMilliseconds: 1))
        #expect(deliveries.count == 2)
        let deleted = try store.deleteWebhook(id: webhook.id, actor: "admin")
        #expect(!deleted.isActive && deleted.deletedAtMilliseconds != nil)
        #expect(try store.webhooks() == [kept])
        #expect(try store.webhooks(includeDeleted: true).map(\.id) == [webhook.id, kept.id])
        let log = try store.webhookDeliveries(webhookID: webhook.id)
        #expect(log.map(\.delivery.status) == [.failed] && log.first?.delivery.lastError == "webhook deleted")
        #expect(try store.pendingWebhookDeliveries(dueBy: 10).map(\.webhookID) == [kept.id])
        #expect(throws: FlagStoreError.webhookNotFound(id: webhook.id)) { try store.deleteWebhook(id: webhook.id, actor: "admin") }
        #expect(throws: FlagStoreError.webhookNotFound(id: 99)) { try store.webhook(id: 99) }
        #expect(try store.auditEntries().first?.action == "webhook.delete")
    }
}
