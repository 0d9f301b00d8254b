import Testing
@testable import FlagStore

/// Which events a webhook receives.
@Suite struct WebhookRecordTests {
    static func webhook(events: [String], environments: Set<String>?, deleted: Bool = false) -> WebhookRecord {
        WebhookRecord(id: 1, url: "https://a.example", events: events, environments: environments, createdAtMilliseconds: 0,
                      createdBy: "admin", deletedAtMilliseconds: deleted ? 5 : nil)
    }

    @Test func byTypeAndEnvironment() {
        let production = Self.webhook(events: ["version.published"], environments: ["production"])
        #expect(production.receives(type: "version.published", environment: "production"))
        #expect(!production.receives(type: "version.published", environment: "staging"))
        #expect(!production.receives(type: "request.created", environment: "production"))
        #expect(!production.receives(type: "version.published", environment: nil), "an event of no environment")
        let everything = Self.webhook(events: ["*"], environments: nil)
        #expect(everything.receives(type: "policy.updated", environment: nil))
        #expect(everything.receives(type: "change.applied", environment: "staging"))
    }

    @Test func aDeletedWebhookReceivesNothing() {
        #expect(!Self.webhook(events: ["*"], environments: nil, deleted: true).receives(type: "policy.updated", environment: nil))
    }
}
