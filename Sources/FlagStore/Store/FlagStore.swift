import Foundation
import ServerLock

/// The versioned store: environments, their immutable document versions, tokens, the audit log and the governance
/// records, in a SQLite file (WAL, `synchronous=FULL`: a returned publish survives a power cut) or a PostgreSQL
/// database that several nodes share. One set of methods and one SQL text for both engines (`Database`); what an
/// engine does its own way is in `SQLiteEngine` and `PostgresEngine` (`Engine`).
///
/// Threading: `FlagStore` is `Sendable`; every method may be called from any thread. Writes run one at a
/// time on a writer connection behind a lock; reads (history, latest versions, tokens) use a second
/// connection (read-only on SQLite) behind its own lock, so a history page never waits for a publish's commit.
/// Several processes may open the same store (the server and `flagserver token create`, or several nodes); their
/// writes queue on the store's write lock (SQLite's, or an advisory lock on PostgreSQL) for up to `busyTimeout`,
/// after which a write fails with `FlagStoreError.busy`.
public final class FlagStore: @unchecked Sendable {
    // @unchecked: the two connections are touched only while holding their lock.

    /// Where the store is: the SQLite file's path, or the PostgreSQL URI with any password masked
    /// (`displayName(of:)`).
    public let location: String
    /// What the engine does its own way (`Engine`).
    let engine: Engine
    private let writeLock = PThreadMutex(())
    private let writer: Database
    private let readLock = PThreadMutex(())
    private let reader: Database
    /// Each environment's row id as this store's publishes read it, and how often another writer moved its head lately:
    /// a batch on heads the caller knows (`publish(batch:knownHeads:)`) needs the id without a query. A stale id only
    /// fails `HeadGuard`.
    let knownEnvironments = PThreadMutex([String: KnownEnvironment]())
    /// Batches on known heads that the server found moved (`HeadGuard`), for tests and measurements.
    let headGuardMisses = PThreadMutex(0)
    /// Batches on known heads that the server found moved since this store was opened (`HeadGuard`).
    package var knownHeadMisses: Int { headGuardMisses.withLock { $0 } }

    /// A store on `writer` and `reader`, opened by its engine (`SQLiteEngine.open`, `PostgresEngine.open`).
    init(location: String, engine: Engine, writer: Database, reader: Database) {
        self.location = location
        self.engine = engine
        self.writer = writer
        self.reader = reader
    }

    /// Opens (creating when needed) the store at `location`. A file path is SQLite: creates the parent directory,
    /// checks that the file is a SQLite database, switches to WAL (checking that SQLite really did), and migrates the
    /// schema; it fails with `cannotCreateDirectory`, `cannotOpen`, `notADatabase`, `walUnavailable` or
    /// `schemaTooNew`, never by crashing, whatever is at the path.
    ///
    /// A `postgresql://` or `postgres://` URI (libpq's syntax: several hosts, `target_session_attrs=read-write`,
    /// ...) opens PostgreSQL instead (`openPostgres`).
    ///
    /// `databaseTimeout` (PostgreSQL only): how long any call waits for the server's answer before the connection is
    /// dropped and the call fails as `unavailable` (a stopped server, a cut link); a write waits that long beyond the
    /// busy timeout.
    public static func open(location: String, busyTimeout: Duration = .seconds(5),
                            databaseTimeout: Duration = defaultDatabaseTimeout) throws -> FlagStore {
        if PostgresEngine.isURI(location) {
            return try openPostgres(uri: location, lockTimeout: busyTimeout, timeout: databaseTimeout)
        }
        return try SQLiteEngine.open(path: location, busyTimeout: busyTimeout)
    }

    /// Connects to PostgreSQL at `uri` (a writer and a reader connection) and migrates the schema under the
    /// store's write lock, so several nodes starting at once on an empty database migrate it once.
    /// `lockTimeout` bounds how long a write waits for another node's (`busy` after it); `timeout`, how long any call
    /// waits for the server's answer beyond that (`unavailable` after it: the server stopped or the link is cut).
    ///
    /// Fails with `cannotOpen` when the server cannot be reached or refuses the login, `schemaTooNew`.
    public static func openPostgres(uri: String, lockTimeout: Duration = .seconds(5),
                                    timeout: Duration = defaultDatabaseTimeout) throws -> FlagStore {
        try PostgresEngine.open(uri: uri, lockTimeout: lockTimeout, timeout: timeout)
    }

    /// How long a PostgreSQL call waits for the server's answer unless told otherwise (`flagserver --database-timeout`).
    public static let defaultDatabaseTimeout: Duration = PostgresConnection.defaultTimeout

    /// `location` fit for logs and errors: a PostgreSQL URI's password (`user:secret@` or `password=`) masked.
    public static func displayName(of location: String) -> String {
        PostgresEngine.displayName(of: location)
    }

    /// Closes both connections. Any later call fails with a `database` error (`SQLITE_MISUSE`).
    public func close() {
        writeLock.withLock { _ in writer.close() }
        readLock.withLock { _ in reader.close() }
    }

    /// Round trips the write connection made to PostgreSQL since it was opened (0 on SQLite), for tests and measurements.
    package var writerRoundTrips: Int {
        writeLock.withLock { _ in
            if case .postgres(let connection) = writer { connection.roundTrips } else { 0 }
        }
    }

    /// Statements the write connection sent to PostgreSQL since it was opened (0 on SQLite), for tests and measurements.
    package var writerStatementsSent: Int {
        writeLock.withLock { _ in
            if case .postgres(let connection) = writer { connection.statementsSent } else { 0 }
        }
    }

    /// Runs `body` on the writer connection, serialized, with errors mapped to `FlagStoreError`.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writeLock.withLock { _ in
            do { return try body(writer) } catch { throw FlagStoreError.wrap(error) }
        }
    }

    /// Runs `body` on the read-only connection, serialized, with errors mapped to `FlagStoreError`.
    ///
    /// PostgreSQL: a read that finds its connection lost (a server restart, a failover) runs once more on a new
    /// connection; reads change nothing, so trying again is safe. A read whose connect failed is not tried again:
    /// that would hold the lock for a second connect attempt (up to `connect_timeout` per host when the server does
    /// not answer at all) while `/readyz` and every other read wait.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readLock.withLock { _ in
            do {
                return try body(reader)
            } catch let error as DatabaseError where error.isUnavailable && !error.isConnectFailure {
                do { return try body(reader) } catch { throw FlagStoreError.wrap(error) }
            } catch {
                throw FlagStoreError.wrap(error)
            }
        }
    }

    /// Answers when the database does (for `/readyz`): one trivial query on the read connection.
    public func ping() throws {
        _ = try read { try $0.queryFirst("SELECT 1") { $0.int(0) } }
    }

    /// Throws unless the write connection reaches a database that takes writes (for `/readyz` after a commit failed
    /// because the database could not take it). PostgreSQL: the session's `transaction_read_only` is off (a standby,
    /// or a server set read-only, has it on; SQLSTATE 25006 otherwise comes only with the next commit); a lost session
    /// is opened again once, as `read` does. SQLite: the file's write connection answers a query.
    public func checkWriter() throws {
        try write { database in
            let isReadOnly: Bool
            do {
                isReadOnly = try engine.writerIsReadOnly(database)
            } catch let error as DatabaseError where error.isUnavailable && !error.isConnectFailure {
                isReadOnly = try engine.writerIsReadOnly(database)
            }
            if isReadOnly {
                throw DatabaseError(sqlState: "25006", message: "the database the write connection reaches does not take writes (transaction_read_only is on)", sql: nil)
            }
        }
    }

    // MARK: Environments

    /// Every environment's name, sorted.
    public func environments() throws -> [String] {
        try read { try Self.environmentNames($0) }
    }

    /// Creates environment `name` (lowercase letters, digits, '-'), recording `actor` in the audit log.
    public func createEnvironment(name: String, actor: String) throws {
        guard Self.isValidEnvironmentName(name) else { throw FlagStoreError.invalidEnvironmentName(name) }
        try Self.requireNonEmpty(actor, name: "actor")
        try write { database in
            try database.transaction {
                do {
                    try database.run("INSERT INTO environments (name, created_at) VALUES (?, ?)",
                                     [.text(name), .integer(currentMilliseconds())])
                } catch let error as DatabaseError where error.isUniqueViolation {
                    throw FlagStoreError.environmentExists(name)
                }
                try Self.audit(database, actor: actor, action: "environment.create", environment: name, detail: "")
            }
        }
    }

    static func environmentNames(_ database: Database) throws -> [String] {
        try database.query("SELECT name FROM environments ORDER BY name") { $0.text(0) }
    }

    /// The row id of environment `name`, or `unknownEnvironment` listing the known ones.
    static func environmentID(_ database: Database, _ name: String) throws -> Int64 {
        if let id = try database.queryFirst("SELECT id FROM environments WHERE name = ?", [.text(name)], row: { $0.int64(0) }) {
            return id
        }
        throw FlagStoreError.unknownEnvironment(name, known: try environmentNames(database))
    }

    static func isValidEnvironmentName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, first != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
    }

    static func requireNonEmpty(_ value: String, name: String, maxLength: Int = 200) throws {
        if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw FlagStoreError.invalidArgument(name: name, reason: "must not be empty")
        }
        if value.utf8.count > maxLength {
            throw FlagStoreError.invalidArgument(name: name, reason: "longer than \(maxLength) bytes")
        }
    }

    /// An INSERT without ON CONFLICT that returned no id: cannot happen unless the database misbehaves.
    static func noRowID(_ table: String) -> DatabaseError {
        DatabaseError(extendedResultCode: 1, message: "INSERT INTO \(table) returned no id", sql: nil)
    }

    // MARK: Audit

    /// Appends one audit line inside the caller's transaction, so it commits or rolls back with the change.
    static func audit(_ database: Database, actor: String, action: String, environment: String?, detail: String) throws {
        try database.enqueue("INSERT INTO audit (at, actor, action, environment, detail) VALUES (?, ?, ?, ?, ?)",
                         [.integer(currentMilliseconds()), .text(actor), .text(action), .optionalText(environment), .text(detail)])
    }
}
