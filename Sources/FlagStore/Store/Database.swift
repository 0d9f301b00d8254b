/// One database connection, SQLite's or PostgreSQL's: the one interface the store's shared code talks to.
///
/// The store's SQL is shared where the dialects agree (`?` placeholders, `RETURNING`, `ON CONFLICT`); what differs
/// lives in each engine's connection (`SQLiteConnection`, `PostgresConnection`: how a transaction takes its write
/// lock, what a commit tells other nodes) and migrations. An enum rather than a protocol: every call is one
/// `switch` the compiler sees through, and the SQLite path pays no witness-table call or allocation per statement.
///
/// Threading: deliberately not `Sendable`; one serial context at a time (see each connection type).
package enum Database {
    /// A SQLite file.
    case sqlite(SQLiteConnection)
    /// A PostgreSQL database, several nodes sharing it.
    case postgres(PostgresConnection)

    /// How a transaction takes its locks.
    package enum TransactionKind: Sendable {
        /// For read-only work: no lock (SQLite: `BEGIN DEFERRED`, a snapshot from the first read; PostgreSQL: one
        /// REPEATABLE READ snapshot).
        case read
        /// Takes the store's write lock at BEGIN, so a read-then-write never fails half-way (SQLite: `BEGIN
        /// IMMEDIATE`, no `SQLITE_BUSY` at the first write; PostgreSQL: the advisory lock `PostgresLock.writes`, so
        /// writers on every node serialize).
        case write
        /// `.write` for a group commit, whose first statement is a query and whose every error fails it whole: on
        /// PostgreSQL BEGIN and the lock are not a round trip of their own but go with that first statement, so a lock
        /// wait past `lock_timeout` fails it (busy). SQLite: `.write`.
        case groupCommit
        /// `.groupCommit` on heads the caller assumes (`FlagStore.HeadGuard`): on PostgreSQL the lock is not waited for
        /// but tried, by the guard, so that the transaction's one exchange waits only for the server
        /// (`--database-timeout`), never also for `lock_timeout`; a lock another node holds fails the guard like a
        /// moved head. SQLite: `.write`.
        case groupCommitTryingLock
    }

    /// Opens the SQLite file at `path` (`SQLiteConnection`).
    package init(path: String, mode: SQLiteConnection.Mode = .readWriteCreate, busyTimeout: Duration = .seconds(5)) throws {
        self = .sqlite(try SQLiteConnection(path: path, mode: mode, busyTimeout: busyTimeout))
    }

    /// Connects to PostgreSQL (`conninfo`: a `postgresql://` URI or libpq's `key=value` string); `timeout`: how long a
    /// call waits for the server's answer (`PostgresConnection`).
    package init(postgres conninfo: String, lockTimeout: Duration = .seconds(5),
                 timeout: Duration = PostgresConnection.defaultTimeout) throws {
        self = .postgres(try PostgresConnection(conninfo: conninfo, lockTimeout: lockTimeout, timeout: timeout))
    }

    /// Closes the connection; later calls fail (`SQLITE_MISUSE`, SQLSTATE `08003`).
    package func close() {
        switch self {
        case .sqlite(let connection): connection.close()
        case .postgres(let connection): connection.close()
        }
    }

    /// Runs SQL that may hold several statements and returns no rows (schema changes, pragmas).
    package func execute(_ sql: String) throws {
        switch self {
        case .sqlite(let connection): try connection.execute(sql)
        case .postgres(let connection): try connection.execute(sql)
        }
    }

    /// Runs one statement with `arguments` to completion, discarding rows; returns the number of rows changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        switch self {
        case .sqlite(let connection): try connection.run(sql, arguments)
        case .postgres(let connection): try connection.run(sql, arguments)
        }
    }

    /// Runs one statement of the open transaction whose answer the caller does not need (an INSERT whose id nobody
    /// reads, an audit line): SQLite runs it now; PostgreSQL sends it with the transaction's next statement that needs
    /// an answer, or with COMMIT, in the same round trip, and an error it meets fails that exchange (the transaction is
    /// then rolled back whole). So it must not be a statement whose error a caller catches to decide something.
    package func enqueue(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
        switch self {
        case .sqlite(let connection): _ = try connection.run(sql, arguments)
        case .postgres(let connection): try connection.enqueue(sql, arguments)
        }
    }

    /// `enqueue` for one row of an `INSERT INTO table (...) VALUES (?, ...)` whose table nothing else in the transaction
    /// depends on before COMMIT (a version, an audit line): PostgreSQL sends the rows queued one after another as one
    /// multi-row INSERT per table (`PostgresStatement.coalescing`), so a group commit of many flips costs the server
    /// one statement per table instead of one per row. Rows of one table keep their order; between tables it may change
    /// within such a run, and any other statement ends the run.
    package func enqueueRow(_ sql: String, _ arguments: [DatabaseValue]) throws {
        switch self {
        case .sqlite(let connection): _ = try connection.run(sql, arguments)
        case .postgres(let connection): try connection.enqueue(sql, arguments, row: true)
        }
    }

    /// Runs one query and maps every row.
    package func query<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> [T] {
        switch self {
        case .sqlite(let connection): try connection.query(sql, arguments, row: row)
        case .postgres(let connection): try connection.query(sql, arguments, row: row)
        }
    }

    /// Runs one query and maps its first row, or returns nil when there is none.
    package func queryFirst<T>(_ sql: String, _ arguments: [DatabaseValue] = [], row: (Row) throws -> T) throws -> T? {
        switch self {
        case .sqlite(let connection): try connection.queryFirst(sql, arguments, row: row)
        case .postgres(let connection): try connection.queryFirst(sql, arguments, row: row)
        }
    }

    /// Runs one INSERT and returns the new row's `id` (`RETURNING id`, which both engines know), or nil when the
    /// INSERT inserted nothing (`ON CONFLICT ... DO NOTHING`).
    package func insert(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int64? {
        try queryFirst(sql + " RETURNING id", arguments) { $0.int64(0) }
    }

    /// Whether a transaction is open.
    package var isInTransaction: Bool {
        switch self {
        case .sqlite(let connection): connection.isInTransaction
        case .postgres(let connection): connection.isInTransaction
        }
    }

    /// Tells the other nodes, when the open transaction commits, of `payload` on `channel` (`StoreListener`);
    /// nothing on SQLite, where one process writes.
    func notifyAtCommit(channel: String, payload: String) throws {
        switch self {
        case .sqlite(let connection): connection.notifyAtCommit(channel: channel, payload: payload)
        case .postgres(let connection): try connection.notifyAtCommit(channel: channel, payload: payload)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Writers should pass `.write` (the default) so the write lock is taken, or waited for, at BEGIN:
    /// a `.read` transaction that reads and then writes can fail at its first write with
    /// `SQLITE_BUSY_SNAPSHOT` in WAL mode, after work was done. Nested calls become savepoints. How each engine
    /// locks: `SQLiteConnection.begin`, `PostgresConnection.begin`.
    @discardableResult
    package func transaction<T>(_ kind: TransactionKind = .write, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            try savepoint("SAVEPOINT nested")
            do {
                let value = try body()
                try savepoint("RELEASE nested")
                return value
            } catch {
                try? savepoint("ROLLBACK TO nested")
                try? savepoint("RELEASE nested")
                throw error
            }
        }
        switch self {
        case .sqlite(let connection): try connection.begin(kind)
        case .postgres(let connection): try connection.begin(kind)
        }
        do {
            let value = try body()
            switch self {
            case .sqlite(let connection): try connection.execute("COMMIT")
            case .postgres(let connection): try connection.commit()
            }
            return value
        } catch {
            switch self {
            case .sqlite(let connection):
                // SQLite may already have rolled back (SQLITE_FULL, SQLITE_IOERR): then ROLLBACK fails, harmlessly.
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            case .postgres(let connection):
                // Also when the session is gone: the connection then forgets the transaction it began there.
                try? connection.rollback()
            }
            throw error
        }
    }

    /// A savepoint statement: SQLite runs it now; PostgreSQL sends it with the next statement that needs an answer.
    private func savepoint(_ sql: String) throws {
        switch self {
        case .sqlite(let connection): try connection.execute(sql)
        case .postgres(let connection): try connection.savepoint(sql)
        }
    }
}
