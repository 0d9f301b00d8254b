import CSQLite

/// One SQLite connection with a cache of prepared statements: `Database.sqlite`.
///
/// Threading: deliberately not `Sendable`. It must be used from one serial context at a time (one thread, or a
/// lock held around every use, as `FlagStore` does). The connection is opened with `SQLITE_OPEN_NOMUTEX` because
/// that serialization is ours. Several connections may be open on the same file at once, in one process or
/// several: WAL lets one writer and many readers proceed together, and writers queue on the busy timeout.
package final class SQLiteConnection {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read and write, creating the file when it does not exist.
        case readWriteCreate
        /// Read and write an existing file.
        case readWrite
        /// Read only.
        case readOnly
    }

    /// The `sqlite3*`; closed by `close()` or `deinit`.
    private(set) var handle: OpaquePointer?
    /// The file this connection opened.
    package let path: String
    /// Prepared statements by SQL text, reused instead of re-parsed.
    private var cache: [String: SQLiteStatement] = [:]

    /// Opens `path`; `busyTimeout` is how long a statement waits for another connection's lock before
    /// failing with `SQLITE_BUSY`.
    package init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
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
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: try connection(for: sql), sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs SQL that may hold several statements and returns no rows (schema changes, pragmas).
    package func execute(_ sql: String) throws {
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
    package func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes64(try connection(for: sql)))
    }

    /// Runs one query and maps every row.
    package func query<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var rows: [T] = []
        while try statement.step() {
            rows.append(try row(.sqlite(statement)))
        }
        return rows
    }

    /// Runs one query and maps its first row, or returns nil when there is none.
    package func queryFirst<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> T? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try statement.step() ? try row(.sqlite(statement)) : nil
    }

    /// Whether a transaction is open (`sqlite3_get_autocommit` is 0).
    package var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Opens a transaction of `kind` (https://sqlite.org/lang_transaction.html): `.write` is `BEGIN IMMEDIATE`,
    /// which takes the file's write lock at BEGIN, waiting up to the busy timeout for another connection's.
    func begin(_ kind: Database.TransactionKind) throws {
        try execute(kind == .read ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE")
    }

    /// Nothing: on SQLite the one process that writes is the one that reads what it wrote, so no other node is
    /// told of a commit.
    @inline(__always)
    func notifyAtCommit(channel: String, payload: String) {}
}
