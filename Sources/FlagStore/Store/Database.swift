import CSQLite

/// One database connection: SQLite (with a statement cache) or PostgreSQL (`PostgresConnection`), behind one API.
///
/// The store's SQL is shared where the dialects agree (`?` placeholders, `RETURNING`, `ON CONFLICT`); what
/// differs is here and in `Schema`: how a transaction takes its write lock (`BEGIN IMMEDIATE` on SQLite, a
/// transaction-scoped advisory lock on PostgreSQL), pragmas, DDL. Each call tests once whether the connection
/// is PostgreSQL; the SQLite path is otherwise what it was (no dynamic dispatch, no allocation added).
///
/// Threading: a `Database` is deliberately not `Sendable`. It must be used from one serial context at a
/// time (one thread, or a lock held around every use, as `FlagStore` does). The connection is opened with
/// `SQLITE_OPEN_NOMUTEX` because that serialization is ours. Several `Database` values may be open on the
/// same file at once, in one process or several: WAL lets one writer and many readers proceed together,
/// and writers queue on the busy timeout.
package final class Database {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read and write, creating the file when it does not exist.
        case readWriteCreate
        /// Read and write an existing file.
        case readWrite
        /// Read only.
        case readOnly
    }

    /// How a transaction takes its locks (https://sqlite.org/lang_transaction.html).
    package enum TransactionKind: String, Sendable {
        /// Takes no lock until the first read or write; for read-only work.
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, so a read-then-write never fails half-way with SQLITE_BUSY.
        case immediate = "IMMEDIATE"
    }

    /// The `sqlite3*`; closed by `close()` or `deinit`.
    private(set) var handle: OpaquePointer?
    /// The file this connection opened.
    package let path: String
    /// Prepared statements by SQL text, reused instead of re-parsed.
    private var cache: [String: Statement] = [:]
    /// The PostgreSQL connection, when this is one (then `handle` is nil).
    package let postgres: PostgresConnection?

    /// Whether this connection is PostgreSQL.
    package var isPostgres: Bool { postgres != nil }

    /// Connects to PostgreSQL (`conninfo`: a `postgresql://` URI or libpq's `key=value` string).
    package init(postgres conninfo: String, lockTimeout: Duration = .seconds(5)) throws {
        self.path = conninfo
        self.postgres = try PostgresConnection(conninfo: conninfo, lockTimeout: lockTimeout)
    }

    /// Opens `path`; `busyTimeout` is how long a statement waits for another connection's lock before
    /// failing with `SQLITE_BUSY`.
    package init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
        self.postgres = nil
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError(code: code, connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw DatabaseError(extendedResultCode: error.extendedResultCode,
                                message: "cannot open \(path): \(error.message)", sql: nil)
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(connection, Int32(clamping: milliseconds))
    }

    deinit {
        close()
    }

    /// Finalizes cached statements and closes the connection. Later calls fail with `SQLITE_MISUSE`.
    package func close() {
        postgres?.close()
        cache.removeAll()
        if let handle {
            // close_v2 defers the close until statements still referenced elsewhere are finalized.
            sqlite3_close_v2(handle)
        }
        handle = nil
    }

    /// The open connection, or `SQLITE_MISUSE` after `close()`.
    func connection(for sql: String?) throws -> OpaquePointer {
        guard let handle else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "connection is closed", sql: sql)
        }
        return handle
    }

    /// The cached prepared statement for `sql`, reset and with cleared bindings.
    package func statement(_ sql: String) throws -> Statement {
        if isPostgres {
            throw DatabaseError(sqlState: "0A000", message: "prepared statements are SQLite's here; use run/query", sql: sql)
        }
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: try connection(for: sql), sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs SQL that may hold several statements and returns no rows (schema changes, pragmas).
    package func execute(_ sql: String) throws {
        if let postgres { return try postgres.execute(sql) }
        let connection = try connection(for: sql)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(connection, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? DatabaseError.describe(code)
            throw DatabaseError(extendedResultCode: sqlite3_extended_errcode(connection), message: text, sql: sql)
        }
    }

    /// Runs one statement with `arguments` to completion, discarding rows; returns the number of rows changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        if let postgres { return try postgres.run(sql, arguments).postgresAffectedRows }
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes64(try connection(for: sql)))
    }

    /// Runs one query and maps every row.
    package func query<Row>(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> Row) throws -> [Row] {
        if let postgres {
            let result = try postgres.run(sql, arguments)
            var rows: [Row] = []
            rows.reserveCapacity(Int(result.postgresRowCount))
            for index in 0..<result.postgresRowCount {
                result.row = index
                rows.append(try row(result))
            }
            return rows
        }
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(try row(statement))
        }
        return rows
    }

    /// Runs one query and maps its first row, or returns nil when there is none.
    package func queryFirst<Row>(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> Row) throws -> Row? {
        if let postgres {
            let result = try postgres.run(sql, arguments)
            return result.postgresRowCount > 0 ? try row(result) : nil
        }
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try statement.step() ? try row(statement) : nil
    }

    /// Runs one INSERT and returns the new row's `id` (`RETURNING id`, which both engines know), or nil when the
    /// INSERT inserted nothing (`ON CONFLICT ... DO NOTHING`).
    package func insert(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64? {
        try queryFirst(sql + " RETURNING id", arguments) { $0.int64(0) }
    }

    /// Whether a transaction is open (`sqlite3_get_autocommit` is 0; PostgreSQL's transaction status).
    package var isInTransaction: Bool {
        if let postgres { return postgres.isInTransaction }
        return handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// BEGIN on PostgreSQL, and for `.immediate` the write lock; a connection found lost at BEGIN (nothing was done
    /// yet) is connected again and BEGIN tried once more, so the first write after a server restart succeeds. A
    /// connect that failed is not tried again at once (`isConnectFailure`): the caller hears of it after one attempt.
    private func beginPostgres(_ kind: TransactionKind) throws {
        let begin = kind == .immediate ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ"
        do {
            try execute(begin)
        } catch let error as DatabaseError where error.isUnavailable && !error.isConnectFailure {
            try execute(begin)
        }
        guard kind == .immediate else { return }
        do {
            try execute("SELECT pg_advisory_xact_lock(\(PostgresLock.writes.rawValue))")
        } catch {
            // lock_timeout (busy) or a lost connection: the transaction is open and aborted; end it.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Writers should pass `.immediate` (the default) so the write lock is taken, or waited for, at BEGIN:
    /// a deferred transaction that reads and then writes can fail at its first write with
    /// `SQLITE_BUSY_SNAPSHOT` in WAL mode, after work was done. Nested calls become savepoints.
    ///
    /// On PostgreSQL `.immediate` takes the store's write lock (`PostgresLock.writes`, a transaction-scoped
    /// advisory lock) right after BEGIN: writers on every node serialize as SQLite's do, and each of their
    /// statements (READ COMMITTED) sees what the previous holder committed. `.deferred` is a REPEATABLE READ
    /// transaction: one snapshot, no lock.
    @discardableResult
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            try execute("SAVEPOINT nested")
            do {
                let value = try body()
                try execute("RELEASE nested")
                return value
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
        }
        if isPostgres {
            try beginPostgres(kind)
        } else {
            try execute("BEGIN \(kind.rawValue)")
        }
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            // SQLite may already have rolled back (SQLITE_FULL, SQLITE_IOERR): then ROLLBACK fails, harmlessly.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }
}
