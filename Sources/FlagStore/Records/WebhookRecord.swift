/// A registered webhook, without its secret (what `GET /v1/webhooks` lists; `WebhookEndpoint` adds the secret
/// for the dispatcher).
public struct WebhookRecord: Sendable, Equatable {
    /// Row id.
    public let id: Int64
    /// Where deliveries are POSTed (`http` or `https`).
    public let url: String
    /// The event types it receives, sorted; `["*"]` for all.
    public let events: [String]
    /// The environments it is limited to; nil: every environment. An event about no environment goes only to
    /// webhooks that are not limited.
    public let environments: Set<String>?
    /// When it was registered.
    public let createdAtMilliseconds: Int64
    /// Who registered it.
    public let createdBy: String
    /// When it was deleted; nil while active. Deleted webhooks stay for their delivery log.
    public let deletedAtMilliseconds: Int64?

    /// Whether it still receives events.
    public var isActive: Bool { deletedAtMilliseconds == nil }

    /// Whether an event of `type` about `environment` goes to this webhook: it is active, it subscribed to the
    /// type (or to `*`), and it is not limited to other environments (an event without an environment goes
    /// only to unlimited webhooks).
    public func receives(type: String, environment: String?) -> Bool {
        guard isActive, events.contains("*") || events.contains(type) else { return false }
        guard let environments else { return true }
        return environment.map(environments.contains) ?? false
    }
}

/// A webhook with its secret: what the dispatcher signs deliveries with. Never sent by the API after creation.
public struct WebhookEndpoint: Sendable, Equatable {
    /// The webhook.
    public let record: WebhookRecord
    /// The HMAC key (`whsec_...`).
    public let secret: String
}
