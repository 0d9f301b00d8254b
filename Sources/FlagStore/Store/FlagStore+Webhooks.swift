import FlagKit

/// Registered webhooks (`docs/governance.md`, "Webhooks"): creating, listing, deleting. The secret is stored as
/// given (it is the HMAC key, so it cannot be hashed) and is never written to the audit log or listed.
extension FlagStore {
    /// Every webhook secret starts with this.
    public static let webhookSecretPrefix = "whsec_"

    /// A new secret for a webhook registered without one: `whsec_` and 32 random bytes from the OS in base64url.
    public static func generateWebhookSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return webhookSecretPrefix + base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Registers a webhook and appends `webhook.create` (url, events, environments; never the secret).
    ///
    /// Refused with `invalidArgument`: a url that is not `http://` or `https://` with a host (or is longer than
    /// 2,000 bytes, or holds spaces or control characters), a secret that is empty or over 200 bytes, no events or an
    /// unknown event type (`WebhookEvent.types` or `*`), an empty environment list; `unknownEnvironment` for an
    /// environment that does not exist.
    @discardableResult
    public func createWebhook(url: String, secret: String, events: [String], environments: Set<String>? = nil,
                              actor: String, client: String? = nil) throws -> WebhookRecord {
        try Self.requireNonEmpty(actor, name: "actor")
        try Self.validateWebhookURL(url)
        if secret.isEmpty || secret.utf8.count > 200 {
            throw FlagStoreError.invalidArgument(name: "secret", reason: "must be 1-200 bytes")
        }
        let events = Set(events).sorted()
        if events.isEmpty { throw FlagStoreError.invalidArgument(name: "events", reason: "must name at least one event or \"*\"") }
        if let unknown = events.first(where: { $0 != "*" && !WebhookEvent.types.contains($0) }) {
            throw FlagStoreError.invalidArgument(name: "events", reason: "unknown event \"\(unknown)\" (known: "
                + WebhookEvent.types.sorted().joined(separator: ", ") + ", or *)")
        }
        if environments?.isEmpty == true {
            throw FlagStoreError.invalidArgument(name: "environments", reason: "must name at least one environment (nil: all)")
        }
        let now = currentMilliseconds()
        let scope = environments.map { $0.sorted(by: JSONValue.utf8Order) }
        return try write { database in
            try database.transaction(.write) {
                if let scope {
                    let known = try Self.environmentNames(database)
                    if let unknown = scope.first(where: { !known.contains($0) }) {
                        throw FlagStoreError.unknownEnvironment(unknown, known: known)
                    }
                }
                let inserted = try database.insert("""
                    INSERT INTO webhooks (url, secret, events, environments, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)
                    """, [.text(url), .text(secret), .text(StoredJSON.text(events)), .optionalText(scope.map(StoredJSON.text)),
                          .integer(now), .text(actor)])
                guard let id = inserted else { throw Self.noRowID("webhooks") }
                let detail = "url \(url) events \(events.joined(separator: ","))"
                    + (scope.map { " environments \($0.joined(separator: ","))" } ?? "")
                try Self.audit(database, AuditRecord(actor: actor, action: "webhook.create", target: String(id), client: client,
                                                     detail: detail), now: now)
                return try Self.fetchWebhook(database, id: id).record
            }
        }
    }

    /// The webhooks by id, active ones only unless `includeDeleted`; without secrets.
    public func webhooks(includeDeleted: Bool = false) throws -> [WebhookRecord] {
        try read { database in
            try database.query("""
                SELECT \(Self.webhookColumns) FROM webhooks WHERE ? = 1 OR deleted_at IS NULL ORDER BY id
                """, [.integer(includeDeleted ? 1 : 0)]) { try Self.webhookEndpoint(from: $0).record }
        }
    }

    /// Webhook `id`, deleted or not, without its secret; `webhookNotFound` when there is none.
    public func webhook(id: Int64) throws -> WebhookRecord {
        try read { database in try Self.fetchWebhook(database, id: id).record }
    }

    /// Webhook `id` with its secret, for the dispatcher that signs its deliveries; `webhookNotFound` when there is
    /// none. A deleted one is returned too (its `record.isActive` is false: skip it).
    public func webhookEndpoint(id: Int64) throws -> WebhookEndpoint {
        try read { database in try Self.fetchWebhook(database, id: id) }
    }

    /// Deletes webhook `id` (soft: it and its delivery log stay), marks its pending deliveries `failed`
    /// ("webhook deleted"), and appends `webhook.delete`, in one transaction. `webhookNotFound` when there is no
    /// active webhook `id`.
    @discardableResult
    public func deleteWebhook(id: Int64, actor: String, client: String? = nil) throws -> WebhookRecord {
        try Self.requireNonEmpty(actor, name: "actor")
        let now = currentMilliseconds()
        return try write { database in
            try database.transaction(.write) {
                guard try database.run("UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                                       [.integer(now), .integer(id)]) == 1 else {
                    throw FlagStoreError.webhookNotFound(id: id)
                }
                try database.run("""
                    UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'webhook deleted'
                    WHERE webhook_id = ? AND status = 'pending'
                    """, [.integer(id)])
                let record = try Self.fetchWebhook(database, id: id).record
                try Self.audit(database, AuditRecord(actor: actor, action: "webhook.delete", target: String(id), client: client,
                                                     detail: "url \(record.url)"), now: now)
                return record
            }
        }
    }

    static let webhookColumns = "id, url, secret, events, environments, created_at, created_by, deleted_at"

    static func fetchWebhook(_ database: Database, id: Int64) throws -> WebhookEndpoint {
        guard let endpoint = try database.queryFirst("SELECT \(webhookColumns) FROM webhooks WHERE id = ?", [.integer(id)],
                                                     row: { try webhookEndpoint(from: $0) }) else {
            throw FlagStoreError.webhookNotFound(id: id)
        }
        return endpoint
    }

    static func webhookEndpoint(from row: Row) throws -> WebhookEndpoint {
        let environments = try row.optionalText("environments").map { Set(try StoredJSON.strings($0, column: "webhooks.environments")) }
        let record = WebhookRecord(id: try row.int64("id"), url: try row.text("url"),
                                   events: try StoredJSON.strings(try row.text("events"), column: "webhooks.events"),
                                   environments: environments, createdAtMilliseconds: try row.int64("created_at"),
                                   createdBy: try row.text("created_by"), deletedAtMilliseconds: try row.optionalInt64("deleted_at"))
        return WebhookEndpoint(record: record, secret: try row.text("secret"))
    }

    /// `http://` or `https://`, a host, at most 2,000 bytes, no spaces or control characters.
    private static func validateWebhookURL(_ url: String) throws {
        let lowered = url.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            throw FlagStoreError.invalidArgument(name: "url", reason: "must start with https:// or http://")
        }
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !host.isEmpty, host.first != ":" else { throw FlagStoreError.invalidArgument(name: "url", reason: "has no host") }
        guard url.utf8.count <= 2000 else { throw FlagStoreError.invalidArgument(name: "url", reason: "longer than 2000 bytes") }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7f }) else {
            throw FlagStoreError.invalidArgument(name: "url", reason: "must not contain spaces or control characters")
        }
    }
}
