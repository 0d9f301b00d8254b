/// What the store runs on a PostgreSQL connection through `Database`: statements whose rows are read as `Row`,
/// and transactions with the store's write lock.
extension PostgresConnection {
    /// Runs one statement with `arguments` to completion; returns the number of rows changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        try result(sql, arguments).affectedRows
    }

    /// Runs one query and maps every row.
    package func query<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> [T] {
        let result = try result(sql, arguments)
        var rows: [T] = []
        rows.reserveCapacity(Int(result.rowCount))
        for index in 0..<result.rowCount {
            result.row = index
            rows.append(try row(.postgres(result)))
        }
        return rows
    }

    /// Runs one query and maps its first row, or returns nil when there is none.
    package func queryFirst<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> T? {
        let result = try result(sql, arguments)
        return result.rowCount > 0 ? try row(.postgres(result)) : nil
    }

    /// BEGIN, and for `.write` the store's write lock (`PostgresLock.writes`, a transaction-scoped advisory
    /// lock: writers on every node serialize as SQLite's do, and each of their statements, READ COMMITTED, sees what
    /// the previous holder committed); `.read` is a REPEATABLE READ transaction: one snapshot, no lock.
    ///
    /// A write's BEGIN and lock are one round trip, answered before this returns: the lock is held from here on, and a
    /// wait past `lock_timeout` fails here (`55P03`, busy) with the transaction ended. A group commit's and a read's
    /// BEGIN (and lock) are queued and sent with the first query (a read's snapshot is taken there anyway). A transaction whose first exchange finds the session
    /// lost (nothing was done yet) is sent again on a new one (`answer`), so the first write after a server restart
    /// succeeds. A connect that failed is not tried again at once (`isConnectFailure`).
    func begin(_ kind: Database.TransactionKind) throws {
        _ = try answer(nil)
        transactionSession = nil
        pending.append(PostgresStatement(sql: kind == .read ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN"))
        pendingBegin = true
        notified = []
        let lock = PostgresStatement(sql: "SELECT pg_advisory_xact_lock(\(PostgresLock.writes.rawValue))", waitsForLock: true)
        switch kind {
        case .read:
            return
        case .groupCommit:
            pending.append(lock)
            return
        case .groupCommitTryingLock:
            // The caller's first statement tries the lock (`FlagStore.HeadGuard`).
            return
        case .write:
            break
        }
        do {
            _ = try answer(lock)
        } catch {
            // lock_timeout (busy) or a lost connection: the transaction is open and aborted, or gone; end it.
            try? rollback()
            throw error
        }
    }

    /// COMMIT, with every queued statement before it in the same round trip. When one of them fails, the COMMIT is
    /// skipped and that statement's error thrown: the transaction is then open and aborted, for the caller to roll back.
    func commit() throws {
        notified = []
        _ = try answer(PostgresStatement(sql: "COMMIT"), committing: true)
        transactionSession = nil
    }

    /// Rolls the open transaction back and ends it here. Queued statements are dropped unsent; a transaction the server
    /// never saw (its BEGIN still queued), or whose session is gone (the server rolled it back), needs no round trip.
    func rollback() throws {
        notified = []
        let unsent = pendingBegin
        pending = []
        pendingBegin = false
        defer { transactionSession = nil }
        guard !unsent, isInTransaction else { return }
        _ = try answer(PostgresStatement(sql: "ROLLBACK"))
    }

    /// Queues a savepoint statement (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`) of the open transaction; nothing when the
    /// transaction is gone with its session (a lost or unanswered connection). A rollback to a savepoint undoes the
    /// notifications queued after it, so each is sent again when asked.
    func savepoint(_ sql: String) throws {
        guard isInTransaction else { return }
        if sql.hasPrefix("ROLLBACK") { notified = [] }
        try enqueue(sql)
    }

    /// Tells every node's `StoreListener` listening on `channel` of `payload` when the open transaction commits
    /// (`pg_notify`: nothing is sent if it rolls back). Queued; once per channel and payload per transaction.
    func notifyAtCommit(channel: String, payload: String) throws {
        guard notified.insert(channel + "\u{0}" + payload).inserted else { return }
        try enqueue("SELECT pg_notify(?, ?)", [.text(channel), .text(payload)])
    }
}
