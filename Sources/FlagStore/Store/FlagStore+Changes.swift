import FlagKit

/// Changes (`docs/governance.md`): recording them and reading them back for the API and the scheduler.
/// Status transitions and applying are in `FlagStore+ChangeTransitions`.
extension FlagStore {
    /// Records `change` in its initial status (`pending` when it needs approval, else `scheduled`) with its
    /// audit line (`change.request` or `change.schedule`) in the same transaction, and returns it.
    ///
    /// Refused with `invalidArgument` (nothing written): an empty change set, a negative base version, an empty
    /// author, a message over 10,000 bytes, or a change that needs no approval and has no `applyAt` (it would be
    /// a plain publish); `unknownEnvironment` for an environment that does not exist.
    @discardableResult
    public func createChange(_ change: NewChange) throws -> ChangeRecord {
        if change.changeSet.isEmpty {
            throw FlagStoreError.invalidArgument(name: "changeSet", reason: "changes nothing")
        }
        if change.baseVersion < 0 {
            throw FlagStoreError.invalidArgument(name: "baseVersion", reason: "must not be negative, got \(change.baseVersion)")
        }
        try Self.requireNonEmpty(change.author, name: "author")
        if change.message.utf8.count > 10_000 {
            throw FlagStoreError.invalidArgument(name: "message", reason: "longer than 10000 bytes")
        }
        if !change.needsApproval && change.applyAtMilliseconds == nil {
            throw FlagStoreError.invalidArgument(name: "applyAt", reason: "a change that needs no approval waits for a time")
        }
        let now = currentMilliseconds()
        let status = change.initialStatus
        return try write { database in
            try database.transaction(.write) {
                let environmentID = try Self.environmentID(database, change.environment)
                let inserted = try database.insert("""
                    INSERT INTO changes (environment_id, kind, change_set, base_version, author, message, created_at, apply_at,
                                         expires_at, needs_approval, touched_flags, protected_flags, status)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(environmentID), .text(change.kind.rawValue),
                          .text(String(decoding: change.changeSet.canonicalBytes, as: UTF8.self)),
                          .integer(Int64(change.baseVersion)), .text(change.author), .text(change.message), .integer(now),
                          change.applyAtMilliseconds.map(DatabaseValue.integer) ?? .null,
                          change.expiresAtMilliseconds.map(DatabaseValue.integer) ?? .null, .integer(change.needsApproval ? 1 : 0),
                          .text(StoredJSON.text(change.touchedFlags)), .text(StoredJSON.text(change.protectedFlags)),
                          .text(status.rawValue)])
                guard let id = inserted else { throw Self.noRowID("changes") }
                var detail = "\(change.kind.rawValue) base \(change.baseVersion): "
                    + change.changeSet.items.map(\.pointer).joined(separator: " ")
                if let applyAt = change.applyAtMilliseconds { detail += " at \(RFC3339.string(milliseconds: applyAt))" }
                if !change.protectedFlags.isEmpty { detail += " protected \(change.protectedFlags.joined(separator: ","))" }
                try Self.audit(database, AuditRecord(
                    actor: change.author, action: status == .pending ? "change.request" : "change.schedule",
                    environment: change.environment, target: String(id), client: change.client, detail: detail), now: now)
                try Self.notifyChange(database, environment: change.environment)
                return try Self.fetchChange(database, id: id)
            }
        }
    }

    /// Tells every node's `StoreListener`, at this transaction's commit, that a change of `environment` was
    /// recorded or decided, so the node running the jobs looks at it at once (not at its scheduler's next idle pass,
    /// up to a minute later). Nothing on SQLite, where the one process that writes is the one that runs the jobs.
    static func notifyChange(_ database: Database, environment: String) throws {
        try database.notifyAtCommit(channel: StoreListener.changesChannel, payload: environment)
    }

    /// Change `id`; `changeNotFound` when there is none.
    public func change(id: Int64) throws -> ChangeRecord {
        try read { database in try Self.fetchChange(database, id: id) }
    }

    /// The changes of one environment that `query` selects, in its order (`unknownEnvironment`, and
    /// `invalidArgument` for a limit outside 1...1000).
    public func changes(query: ChangeQuery) throws -> [ChangeRecord] {
        guard ChangeQuery.limitRange.contains(query.limit) else {
            throw FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(query.limit)")
        }
        return try read { database in
            let environmentID = try Self.environmentID(database, query.environment)
            var conditions = ["c.environment_id = ?"]
            var arguments: [DatabaseValue] = [.integer(environmentID)]
            if let statuses = query.statuses {
                guard !statuses.isEmpty else { return [] }
                conditions.append("c.status IN (\(ChangeStatus.sqlList(statuses)))")
            }
            if query.withApplyAtOnly { conditions.append("c.apply_at IS NOT NULL") }
            if query.requestsOnly { conditions.append("c.needs_approval = 1") }
            if let before = query.before {
                conditions.append("c.id < ?")
                arguments.append(.integer(before))
            }
            let order = query.order == .applyAt ? "c.apply_at IS NULL, c.apply_at, c.id" : "c.id DESC"
            arguments.append(.integer(Int64(query.limit)))
            return try database.query("""
                SELECT \(ChangeRecord.columns) FROM changes c JOIN environments e ON e.id = c.environment_id
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?
                """, arguments) { try ChangeRecord(row: $0) }
        }
    }

    /// The changes to publish now, in every environment, in the order to hand them to the writer: every
    /// `scheduled` change whose `applyAt` is at or before `now` and that no tripped guard holds (`heldByGuard`), and
    /// every `approved` one (approved for
    /// immediate publication; after a crash, still owed). Ordered by when each was due, then by id.
    public func dueChanges(now: Int64) throws -> [ChangeRecord] {
        try read { database in
            try database.query("""
                SELECT \(ChangeRecord.columns) FROM changes c JOIN environments e ON e.id = c.environment_id
                WHERE (c.status = 'scheduled' AND c.apply_at <= ? AND c.held_by_guard IS NULL) OR c.status = 'approved'
                ORDER BY CASE c.status WHEN 'approved' THEN coalesce(c.decided_at, c.created_at) ELSE c.apply_at END, c.id
                """, [.integer(now)]) { try ChangeRecord(row: $0) }
        }
    }

    /// When the scheduler should next look (milliseconds since 1970 UTC): the earliest `applyAt` of a
    /// `scheduled` change no guard holds, or the decision time of an `approved` one (then: at once); nil when nothing waits.
    /// Pending requests' expiry is `nextExpiry()`.
    public func nextDueTime() throws -> Int64? {
        try read { database in
            try database.queryFirst("""
                SELECT min(due) FROM (
                    SELECT min(apply_at) AS due FROM changes WHERE status = 'scheduled' AND held_by_guard IS NULL
                    UNION ALL SELECT min(coalesce(decided_at, created_at)) FROM changes WHERE status = 'approved') AS due_times
                """) { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        }
    }

    /// The pending change requests whose `expiresAt` is at or before `now` (for `expireChange`), oldest first.
    public func expiredRequests(now: Int64) throws -> [ChangeRecord] {
        try read { database in
            try database.query("""
                SELECT \(ChangeRecord.columns) FROM changes c JOIN environments e ON e.id = c.environment_id
                WHERE c.status = 'pending' AND c.expires_at <= ? ORDER BY c.expires_at, c.id
                """, [.integer(now)]) { try ChangeRecord(row: $0) }
        }
    }

    /// When the next pending request expires, or nil when none will.
    public func nextExpiry() throws -> Int64? {
        try read { database in
            try database.queryFirst("SELECT min(expires_at) FROM changes WHERE status = 'pending'") {
                $0.isNull(0) ? nil : $0.int64(0)
            } ?? nil
        }
    }

    /// Change `id` inside the caller's transaction; `changeNotFound` when there is none.
    static func fetchChange(_ database: Database, id: Int64) throws -> ChangeRecord {
        guard let record = try database.queryFirst("""
            SELECT \(ChangeRecord.columns) FROM changes c JOIN environments e ON e.id = c.environment_id WHERE c.id = ?
            """, [.integer(id)], row: { try ChangeRecord(row: $0) }) else {
            throw FlagStoreError.changeNotFound(id: id)
        }
        return record
    }
}
