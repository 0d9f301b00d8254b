import AppStoreNotifications

/// App Store Server Notifications (docs/appstore.md): each `NotificationRecord` stored once under its
/// `notificationUUID` in `appstore_notifications`, read by `signedDate` range, deleted by age.
extension FlagStore {
    /// UUIDs one existence query asks about at most. The query's `IN` list is padded to a power of two up to this,
    /// so a batch of any size uses one of seven statement texts (prepared once each on PostgreSQL).
    static let notificationLookupWidth = 64

    /// Stores each record whose `notificationUUID` is new, in ONE durable write transaction; returns, per record in
    /// order, true when it was stored now, false when it was there already (Apple sends a notification again until it
    /// gets a 200) or earlier in `records` (a batch holding one UUID twice stores it once).
    ///
    /// The transaction holds the store's write lock (every node's writers serialize on it), so the existence query
    /// that decides each answer sees every committed row and no other writer can add one before the commit. On
    /// PostgreSQL BEGIN and the lock go with the first existence query and the INSERTs are queued with COMMIT
    /// (`Database.enqueue`): a batch of up to `notificationLookupWidth` records is two round trips. Each INSERT
    /// still says `ON CONFLICT (notification_uuid) DO NOTHING`, so a writer outside the store cannot make it fail.
    ///
    /// `invalidArgument` when a record's `notificationUUID` is empty or longer than 200 bytes.
    public func storeNotifications(_ records: [NotificationRecord]) throws -> [Bool] {
        guard !records.isEmpty else { return [] }
        for record in records { try Self.requireNonEmpty(record.notificationUUID, name: "notificationUUID") }
        var seen: Set<String> = []
        let distinct = records.map(\.notificationUUID).filter { seen.insert($0).inserted }
        return try write { database in
            // The first statement is a query: BEGIN and the lock go with it (`.groupCommit`).
            try database.transaction(.groupCommit) { () throws -> [Bool] in
                var present: Set<String> = []
                var start = 0
                while start < distinct.count {
                    let chunk = Array(distinct[start..<min(start + Self.notificationLookupWidth, distinct.count)])
                    present.formUnion(try Self.storedNotificationUUIDs(database, chunk))
                    start += chunk.count
                }
                var stored: [Bool] = []
                stored.reserveCapacity(records.count)
                for record in records {
                    guard present.insert(record.notificationUUID).inserted else {
                        stored.append(false)
                        continue
                    }
                    try database.enqueue(Self.insertNotification, Self.values(of: record))
                    stored.append(true)
                }
                return stored
            }
        }
    }

    /// Records with `signedDate` in [`from`, `to`), ordered by `signedDate` then `notificationUUID` (byte order);
    /// only `product`'s when given; at most `limit` when given (`invalidArgument` when negative).
    public func notifications(signedFrom from: Int64, to: Int64, product: String? = nil, limit: Int? = nil) throws
        -> [NotificationRecord] {
        if let limit, limit < 0 { throw FlagStoreError.invalidArgument(name: "limit", reason: "must not be negative") }
        guard from < to, limit != 0 else { return [] }
        return try read { database in
            try database.query("""
                SELECT \(Self.notificationColumns.joined(separator: ", ")) FROM appstore_notifications
                WHERE signed_date >= ? AND signed_date < ? AND (? = 0 OR product_id = ?)
                ORDER BY signed_date, notification_uuid LIMIT ?
                """, [.integer(from), .integer(to), .integer(product == nil ? 0 : 1), .optionalText(product),
                      .integer(limit.map(Int64.init) ?? Int64.max)]) { try Self.notification(from: $0) }
        }
    }

    /// How many records have `signedDate` in [`from`, `to`): what a reader that kept those records checks them by (the
    /// table only grows, but for the retention's deletions of what was signed before its start).
    public func notificationCount(signedFrom from: Int64, to: Int64) throws -> Int {
        guard from < to else { return 0 }
        return try read { database in
            try database.queryFirst("SELECT count(*) FROM appstore_notifications WHERE signed_date >= ? AND signed_date < ?",
                                    [.integer(from), .integer(to)]) { $0.int(0) } ?? 0
        }
    }

    /// Deletes the records with `signedDate` < `before` (the retention, `--appstore-retention-days`); returns how many.
    @discardableResult
    public func deleteNotifications(signedBefore before: Int64) throws -> Int {
        try write { database in
            try database.transaction(.write) {
                try database.run("DELETE FROM appstore_notifications WHERE signed_date < ?", [.integer(before)])
            }
        }
    }

    /// The table's columns, in `NotificationRecord`'s order of fields.
    static let notificationColumns = [
        "notification_uuid", "notification_type", "subtype", "signed_date", "received_at", "environment", "product_id",
        "offer_type", "offer_identifier", "offer_discount_type", "price", "currency", "storefront", "transaction_reason",
        "expires_date", "expiration_intent", "revocation_reason", "price_increase_status", "auto_renew_status",
        "is_in_billing_retry_period", "grace_period_expires_date", "subscription",
    ]

    static let insertNotification = "INSERT INTO appstore_notifications (" + notificationColumns.joined(separator: ", ")
        + ") VALUES (" + notificationColumns.map { _ in "?" }.joined(separator: ", ") + ") ON CONFLICT (notification_uuid) DO NOTHING"

    /// Which of `uuids` (at most `notificationLookupWidth`) are stored.
    static func storedNotificationUUIDs(_ database: Database, _ uuids: [String]) throws -> [String] {
        guard let last = uuids.last else { return [] }
        var width = 1
        while width < uuids.count { width *= 2 }
        let padded = uuids + Array(repeating: last, count: width - uuids.count)
        return try database.query("""
            SELECT notification_uuid FROM appstore_notifications
            WHERE notification_uuid IN (\(Array(repeating: "?", count: width).joined(separator: ", ")))
            """, padded.map { .text($0) }) { $0.text(0) }
    }

    /// `record`'s values in `notificationColumns` order.
    static func values(of record: NotificationRecord) -> [DatabaseValue] {
        [.text(record.notificationUUID), .text(record.notificationType), .optionalText(record.subtype), .integer(record.signedDate),
         .integer(record.receivedAt), .text(record.environment), .optionalText(record.productID), .optionalInteger(record.offerType),
         .optionalText(record.offerIdentifier), .optionalText(record.offerDiscountType), optional(record.price),
         .optionalText(record.currency), .optionalText(record.storefront), .optionalText(record.transactionReason),
         optional(record.expiresDate), .optionalInteger(record.expirationIntent), .optionalInteger(record.revocationReason),
         .optionalInteger(record.priceIncreaseStatus), .optionalInteger(record.autoRenewStatus),
         .optionalInteger(record.isInBillingRetryPeriod.map { $0 ? 1 : 0 }), optional(record.gracePeriodExpiresDate),
         .optionalText(record.subscription)]
    }

    private static func optional(_ value: Int64?) -> DatabaseValue { value.map { .integer($0) } ?? .null }

    /// The record in the current row (selected with `notificationColumns`).
    static func notification(from row: Row) throws -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: try row.text("notification_uuid"),
                                        notificationType: try row.text("notification_type"), subtype: try row.optionalText("subtype"),
                                        signedDate: try row.int64("signed_date"), receivedAt: try row.int64("received_at"),
                                        environment: try row.text("environment"))
        record.productID = try row.optionalText("product_id")
        record.offerType = try row.optionalInt("offer_type")
        record.offerIdentifier = try row.optionalText("offer_identifier")
        record.offerDiscountType = try row.optionalText("offer_discount_type")
        record.price = try row.optionalInt64("price")
        record.currency = try row.optionalText("currency")
        record.storefront = try row.optionalText("storefront")
        record.transactionReason = try row.optionalText("transaction_reason")
        record.expiresDate = try row.optionalInt64("expires_date")
        record.expirationIntent = try row.optionalInt("expiration_intent")
        record.revocationReason = try row.optionalInt("revocation_reason")
        record.priceIncreaseStatus = try row.optionalInt("price_increase_status")
        record.autoRenewStatus = try row.optionalInt("auto_renew_status")
        record.isInBillingRetryPeriod = try row.optionalInt64("is_in_billing_retry_period").map { $0 != 0 }
        record.gracePeriodExpiresDate = try row.optionalInt64("grace_period_expires_date")
        record.subscription = try row.optionalText("subscription")
        return record
    }
}
