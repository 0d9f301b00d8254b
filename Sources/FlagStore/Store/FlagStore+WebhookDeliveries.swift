/// Webhook deliveries: one row per webhook and event, one row per HTTP attempt. Pending deliveries live in the
/// database, so they resume after a restart (`pendingWebhookDeliveries(dueBy:)`).
extension FlagStore {
    /// Enqueues `event` for every active webhook that receives it (`WebhookRecord.receives`), in one transaction,
    /// each delivery pending and due at the event's time. Returns the deliveries created (none when no webhook
    /// wants it). Enqueuing the same event id again creates nothing new for a webhook that already has it.
    ///
    /// `invalidArgument` for an unknown event type or an id that is empty or over 100 bytes.
    @discardableResult
    public func enqueueWebhookEvent(_ event: WebhookEvent) throws -> [WebhookDelivery] {
        try enqueueWebhookEvents([event])
    }

    /// `enqueueWebhookEvent` for several events in ONE transaction (one fsync), in order: the dispatcher hands
    /// over what gathered while it was busy, so a burst of publishes costs the webhooks one commit, not one each.
    /// Every event is checked before anything is written: one invalid event refuses them all.
    @discardableResult
    public func enqueueWebhookEvents(_ events: [WebhookEvent]) throws -> [WebhookDelivery] {
        for event in events {
            guard WebhookEvent.types.contains(event.type) else {
                throw FlagStoreError.invalidArgument(name: "type", reason: "unknown event type \"\(event.type)\"")
            }
            guard !event.id.isEmpty, event.id.utf8.count <= 100 else {
                throw FlagStoreError.invalidArgument(name: "id", reason: "must be 1-100 bytes")
            }
        }
        guard !events.isEmpty else { return [] }
        let now = currentMilliseconds()
        return try write { database in
            try database.transaction(.write) {
                let active = try database.query("SELECT \(Self.webhookColumns) FROM webhooks WHERE deleted_at IS NULL ORDER BY id") {
                    try Self.webhookEndpoint(from: $0).record
                }
                var created: [WebhookDelivery] = []
                for event in events {
                    for webhook in active where webhook.receives(type: event.type, environment: event.environment) {
                        let inserted = try database.insert("""
                            INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status,
                                                            next_attempt_at, created_at)
                            VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (webhook_id, event_id) DO NOTHING
                            """, [.integer(webhook.id), .text(event.id), .text(event.type), .optionalText(event.environment),
                                  .blob(event.payload), .integer(event.createdAtMilliseconds), .integer(now)])
                        if let id = inserted { created.append(try Self.fetchDelivery(database, id: id)) }
                    }
                }
                return created
            }
        }
    }

    /// Records one HTTP attempt of delivery `deliveryID` and what becomes of the delivery, in one transaction:
    /// the attempt row, then the delivery's `attempts`, last status and error, and its status (`delivered`,
    /// `pending` until `retry`'s time, or `failed`). Returns the delivery after it.
    ///
    /// Refused with `invalidArgument` (nothing written) unless the delivery is pending and `attempt.number` is
    /// its next attempt: an attempt is recorded once, even when two dispatchers raced for the delivery.
    /// `webhookDeliveryNotFound` for an unknown id.
    @discardableResult
    public func recordWebhookAttempt(deliveryID: Int64, _ attempt: WebhookAttempt,
                                     outcome: WebhookAttemptOutcome) throws -> WebhookDelivery {
        guard attempt.durationMilliseconds >= 0 else {
            throw FlagStoreError.invalidArgument(name: "durationMilliseconds", reason: "must not be negative")
        }
        let error = attempt.error.map { AuditRecord.truncated($0, to: AuditRecord.maximumReasonBytes) }
        let (status, next, delivered): (WebhookDeliveryStatus, Int64?, Int64?) = switch outcome {
        case .delivered: (.delivered, nil, attempt.atMilliseconds)
        case .retry(let at): (.pending, at, nil)
        case .failed: (.failed, nil, nil)
        }
        return try write { database in
            try database.transaction(.write) {
                let delivery = try Self.fetchDelivery(database, id: deliveryID)
                guard delivery.status == .pending, attempt.number == delivery.attempts + 1 else {
                    throw FlagStoreError.invalidArgument(name: "attempt", reason: "delivery \(deliveryID) is \(delivery.status.rawValue) "
                        + "after \(delivery.attempts) attempts; attempt \(attempt.number) cannot be recorded")
                }
                try database.run("""
                    INSERT INTO webhook_attempts (delivery_id, number, at, response_status, error, duration_ms, refused)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(deliveryID), .integer(Int64(attempt.number)), .integer(attempt.atMilliseconds),
                          .optionalInteger(attempt.responseStatus), .optionalText(error),
                          .integer(Int64(attempt.durationMilliseconds)), .integer(attempt.refused ? 1 : 0)])
                try database.run("""
                    UPDATE webhook_deliveries SET attempts = ?, last_status = ?, last_error = ?, status = ?, next_attempt_at = ?,
                                                  delivered_at = ?
                    WHERE id = ?
                    """, [.integer(Int64(attempt.number)), .optionalInteger(attempt.responseStatus), .optionalText(error),
                          .text(status.rawValue), next.map(DatabaseValue.integer) ?? .null, delivered.map(DatabaseValue.integer) ?? .null,
                          .integer(deliveryID)])
                return try Self.fetchDelivery(database, id: deliveryID)
            }
        }
    }

    /// The pending deliveries due at or before `now`, earliest first, at most `limit` (for the dispatcher, also
    /// right after a restart).
    public func pendingWebhookDeliveries(dueBy now: Int64, limit: Int = 100) throws -> [WebhookDelivery] {
        guard limit >= 1 else { throw FlagStoreError.invalidArgument(name: "limit", reason: "must be at least 1") }
        return try read { database in
            try database.query("""
                SELECT \(Self.deliveryColumns) FROM webhook_deliveries
                WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
                """, [.integer(now), .integer(Int64(limit))]) { try Self.delivery(from: $0) }
        }
    }

    /// When the next pending delivery is due, or nil when none is pending (how long the dispatcher may sleep).
    public func nextWebhookAttemptTime() throws -> Int64? {
        try read { database in
            try database.queryFirst("SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'") {
                $0.isNull(0) ? nil : $0.int64(0)
            } ?? nil
        }
    }

    /// The deliveries of webhook `webhookID` (deleted or not), newest first, each with its attempts oldest first:
    /// at most `limit` (1...1000), all older than delivery `before` when given. `webhookNotFound` for an unknown id.
    public func webhookDeliveries(webhookID: Int64, limit: Int = 50, before: Int64? = nil) throws -> [WebhookDeliveryLog] {
        guard (1...1000).contains(limit) else {
            throw FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(limit)")
        }
        return try read { database in
            _ = try Self.fetchWebhook(database, id: webhookID)
            let deliveries = try database.query("""
                SELECT \(Self.deliveryColumns) FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?
                """, [.integer(webhookID), .integer(before ?? .max), .integer(Int64(limit))]) { try Self.delivery(from: $0) }
            return try deliveries.map { delivery in
                let attempts = try database.query("""
                    SELECT number, at, response_status, error, duration_ms, refused FROM webhook_attempts WHERE delivery_id = ?
                    ORDER BY number
                    """, [.integer(delivery.id)]) { row in
                    WebhookAttempt(number: try row.int("number"), atMilliseconds: try row.int64("at"),
                                   responseStatus: try row.optionalInt("response_status"), error: try row.optionalText("error"),
                                   durationMilliseconds: try row.int("duration_ms"), refused: try row.int("refused") != 0)
                }
                return WebhookDeliveryLog(delivery: delivery, attempts: attempts)
            }
        }
    }

    private static let deliveryColumns = """
        id, webhook_id, event_id, event_type, environment, payload, status, attempts, next_attempt_at, last_status, last_error,
        created_at, delivered_at
        """

    private static func fetchDelivery(_ database: Database, id: Int64) throws -> WebhookDelivery {
        guard let delivery = try database.queryFirst("SELECT \(deliveryColumns) FROM webhook_deliveries WHERE id = ?",
                                                     [.integer(id)], row: { try delivery(from: $0) }) else {
            throw FlagStoreError.webhookDeliveryNotFound(id: id)
        }
        return delivery
    }

    private static func delivery(from row: Row) throws -> WebhookDelivery {
        let statusText = try row.text("status")
        guard let status = WebhookDeliveryStatus(rawValue: statusText) else {
            throw StoredJSON.corrupt("webhook delivery \(try row.int64("id")) has status \(statusText)")
        }
        return WebhookDelivery(
            id: try row.int64("id"), webhookID: try row.int64("webhook_id"), eventID: try row.text("event_id"),
            eventType: try row.text("event_type"), environment: try row.optionalText("environment"),
            payload: try row.blob("payload"), status: status, attempts: try row.int("attempts"),
            nextAttemptAtMilliseconds: try row.optionalInt64("next_attempt_at"), lastStatus: try row.optionalInt("last_status"),
            lastError: try row.optionalText("last_error"), createdAtMilliseconds: try row.int64("created_at"),
            deliveredAtMilliseconds: try row.optionalInt64("delivered_at"))
    }
}
