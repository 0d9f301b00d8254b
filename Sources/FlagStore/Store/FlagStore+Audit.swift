/// The audit log: appending lines (also refusals, in the writer's next commit) and reading it with filters.
extension FlagStore {
    /// Appends `entries` in one transaction (one fsync for all), in order.
    ///
    /// For lines that belong to no publish, e.g. refusals while nothing is being published; with a publish,
    /// pass them to `publish(batch:audit:)` instead, which writes them in the batch's own commit.
    public func appendAudit(_ entries: [AuditRecord]) throws {
        guard !entries.isEmpty else { return }
        try write { database in
            try database.transaction(.write) { try Self.audit(database, entries) }
        }
    }

    /// Appends audit lines inside the caller's transaction, so they commit or roll back with it. Lines without
    /// a time get the same `now`.
    static func audit(_ database: Database, _ entries: [AuditRecord]) throws {
        let now = currentMilliseconds()
        for entry in entries {
            try audit(database, entry, now: now)
        }
    }

    /// Appends one audit line inside the caller's transaction, each text cut to its bound (`AuditRecord.bounded`).
    static func audit(_ database: Database, _ entry: AuditRecord, now: Int64? = nil) throws {
        let entry = entry.bounded()
        // Queued: on PostgreSQL the line goes with the transaction's next exchange (`Database.enqueue`).
        try database.enqueueRow("""
            INSERT INTO audit (at, actor, action, environment, detail, outcome, status, reason, client, target, version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(entry.atMilliseconds ?? now ?? currentMilliseconds()), .text(entry.actor), .text(entry.action),
                  .optionalText(entry.environment), .text(entry.detail), .text(entry.outcome.rawValue), .optionalInteger(entry.status),
                  .optionalText(entry.reason), .optionalText(entry.client), .optionalText(entry.target), .optionalInteger(entry.version)])
    }

    /// A page of the audit log, newest first, with every filter of `query` applied.
    ///
    /// `invalidArgument` for a limit outside 1...1000. Each filter is a condition the indexes of migration 3
    /// serve (environment, actor, time; actions other than `publish` and refusals by partial indexes, as
    /// publishes and `ok` lines are most of the log and a newest-first scan finds them at once), so a page
    /// costs about its size, not the log's length.
    public func auditEntries(query: AuditQuery) throws -> AuditPage {
        guard AuditQuery.limitRange.contains(query.limit) else {
            throw FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(query.limit)")
        }
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        func add(_ condition: String, _ value: DatabaseValue) {
            conditions.append(condition)
            arguments.append(value)
        }
        if let environment = query.environment { add("environment = ?", .text(environment)) }
        if let since = query.sinceMilliseconds { add("at >= ?", .integer(since)) }
        if let until = query.untilMilliseconds { add("at < ?", .integer(until)) }
        if let actor = query.actor { add("actor = ?", .text(actor)) }
        if let action = query.action {
            add("action = ?", .text(action))
            // The partial index's own condition, spelled out so SQLite may use it (as for outcome below).
            if action != "publish" { conditions.append("action <> 'publish'") }
        }
        if let outcome = query.outcome {
            add("outcome = ?", .text(outcome.rawValue))
            // Spelled as the partial index's own condition, which is how SQLite recognizes that it may use it.
            if outcome != .ok { conditions.append("outcome <> 'ok'") }
        }
        if let before = query.before { add("id < ?", .integer(before)) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // One row more than asked tells whether another page exists, without a second query.
        arguments.append(.integer(Int64(query.limit + 1)))
        var entries = try read { database in
            try database.query("""
                SELECT id, at, actor, action, environment, detail, outcome, status, reason, client, target, version
                FROM audit \(filter) ORDER BY id DESC LIMIT ?
                """, arguments) { try Self.auditEntry(from: $0) }
        }
        var next: Int64?
        if entries.count > query.limit {
            entries.removeLast()
            next = entries.last?.id
        }
        return AuditPage(entries: entries, next: next)
    }

    /// The newest `limit` audit lines, newest first (`auditEntries(query:)` without filters; a limit outside
    /// 1...1000 is clamped, as this call never refused one).
    public func auditEntries(limit: Int = 100) throws -> [AuditEntry] {
        guard limit > 0 else { return [] }
        return try auditEntries(query: AuditQuery(limit: min(limit, AuditQuery.limitRange.upperBound))).entries
    }

    /// The lines about `target` with one of `actions` (none of them `publish`), newest first, at most `limit`: a guard's
    /// audited decisions. Served by the partial index on actions other than `publish`.
    func auditEntries(target: String, actions: [String], limit: Int) throws -> [AuditEntry] {
        guard !actions.isEmpty, !actions.contains("publish") else { return [] }
        let placeholders = actions.map { _ in "?" }.joined(separator: ", ")
        return try read { database in
            try database.query("""
                SELECT id, at, actor, action, environment, detail, outcome, status, reason, client, target, version
                FROM audit WHERE action IN (\(placeholders)) AND action <> 'publish' AND target = ? ORDER BY id DESC LIMIT ?
                """, actions.map(DatabaseValue.text) + [.text(target), .integer(Int64(limit))]) { try Self.auditEntry(from: $0) }
        }
    }

    private static func auditEntry(from row: Row) throws -> AuditEntry {
        let outcomeText = try row.text("outcome")
        guard let outcome = AuditOutcome(rawValue: outcomeText) else {
            throw StoredJSON.corrupt("audit line \(try row.int64("id")) has outcome \(outcomeText)")
        }
        return AuditEntry(id: try row.int64("id"), atMilliseconds: try row.int64("at"), actor: try row.text("actor"),
                          action: try row.text("action"), environment: try row.optionalText("environment"),
                          detail: try row.text("detail"), outcome: outcome, status: try row.optionalInt("status"),
                          reason: try row.optionalText("reason"), client: try row.optionalText("client"),
                          target: try row.optionalText("target"), version: try row.optionalInt("version"))
    }
}
