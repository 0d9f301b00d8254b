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
    /// A connection found lost at BEGIN (nothing was done yet) is connected again and BEGIN tried once more, so the
    /// first write after a server restart succeeds. A connect that failed is not tried again at once
    /// (`isConnectFailure`): the caller hears of it after one attempt.
    func begin(_ kind: Database.TransactionKind) throws {
        let begin = kind == .write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ"
        do {
            try execute(begin)
        } catch let error as DatabaseError where error.isUnavailable && !error.isConnectFailure {
            try execute(begin)
        }
        guard kind == .write else { return }
        do {
            try execute("SELECT pg_advisory_xact_lock(\(PostgresLock.writes.rawValue))")
        } catch {
            // lock_timeout (busy) or a lost connection: the transaction is open and aborted; end it.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Tells every node's `StoreListener` listening on `channel` of `payload` when the open transaction commits
    /// (`pg_notify`: nothing is sent if it rolls back).
    func notifyAtCommit(channel: String, payload: String) throws {
        try run("SELECT pg_notify(?, ?)", [.text(channel), .text(payload)])
    }
}
