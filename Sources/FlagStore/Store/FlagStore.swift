import Foundation
import ServerLock

/// The versioned store: environments, their immutable document versions, tokens and the audit log, in one
/// SQLite file (WAL, `synchronous=FULL`: a returned publish survives a power cut).
///
/// Threading: `FlagStore` is `Sendable`; every method may be called from any thread. Writes run one at a
/// time on a writer connection behind a lock; reads (history, latest versions, tokens) use a second,
/// read-only connection behind its own lock, so a history page never waits for a publish's fsync. Several
/// processes may open the same file (the server and `flagserver token create`); their writes queue on
/// SQLite's lock for up to `busyTimeout`, after which a write fails with `FlagStoreError.busy`.
public final class FlagStore: @unchecked Sendable {
    // @unchecked: the two connections are touched only while holding their lock.

    /// The database file; for PostgreSQL the URI with any password masked (`displayName(of:)`).
    public let path: String
    /// Whether the store is PostgreSQL (several nodes may share it) rather than a SQLite file.
    public let isPostgres: Bool
    /// The connection string as given (PostgreSQL: for connections of their own, `StoreListener`, `JobLease`).
    let conninfo: String
    private let writeLock = PThreadMutex(())
    private let writer: Database
    private let readLock = PThreadMutex(())
    private let reader: Database
    /// PostgreSQL: the session of the write connection, whose commits' notifications this node's listener skips.
    let writerSession: PostgresSession?

    private init(path: String, writer: Database, reader: Database) {
        self.path = writer.isPostgres ? Self.displayName(of: path) : path
        self.isPostgres = writer.isPostgres
        self.conninfo = path
        self.writer = writer
        self.reader = reader
        writerSession = writer.postgres?.session
    }

    /// Opens (creating when needed) the store at `path`: creates the parent directory, checks that the file
    /// is a SQLite database, switches to WAL (checking that SQLite really did), and migrates the schema.
    ///
    /// Fails with `cannotCreateDirectory`, `cannotOpen`, `notADatabase`, `walUnavailable` or `schemaTooNew`,
    /// never by crashing, whatever is at `path`.
    ///
    /// A `postgresql://` or `postgres://` URI (libpq's syntax: several hosts, `target_session_attrs=read-write`,
    /// ...) opens PostgreSQL instead (`openPostgres`).
    public static func open(path: String, busyTimeout: Duration = .seconds(5)) throws -> FlagStore {
        if isPostgresURI(path) { return try openPostgres(uri: path, lockTimeout: busyTimeout) }
        // SQLite reads "" as a private temporary database: never what a caller of the store means.
        guard !path.isEmpty else { throw FlagStoreError.invalidArgument(name: "path", reason: "must not be empty") }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
                throw FlagStoreError.cannotCreateDirectory(path: directory, reason: reason)
            }
        }
        let writer = try connect(path: path, mode: .readWriteCreate, busyTimeout: busyTimeout) { database in
            let mode = try database.setJournalMode("WAL")
            guard mode == "wal" else { throw FlagStoreError.walUnavailable(path: path, journalMode: mode) }
            // FULL: the WAL is fsynced at every commit, so an acknowledged publish survives power loss
            // (https://sqlite.org/pragma.html#pragma_synchronous).
            try database.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
            guard try database.queryFirst("PRAGMA foreign_keys", row: { $0.int(0) }) == 1 else {
                throw DatabaseError(extendedResultCode: 1, message: "foreign_keys could not be enabled", sql: nil)
            }
            try Schema.migrate(database, path: path)
        }
        let reader = try connect(path: path, mode: .readOnly, busyTimeout: busyTimeout) { database in
            _ = try database.userVersion()
        }
        return FlagStore(path: path, writer: writer, reader: reader)
    }

    /// Whether `location` names PostgreSQL (`postgresql://` or `postgres://`, as libpq accepts) rather than a file.
    public static func isPostgresURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Connects to PostgreSQL at `uri` (a writer and a reader connection) and migrates the schema under the
    /// store's write lock, so several nodes starting at once on an empty database migrate it once.
    /// `lockTimeout` bounds how long a write waits for another node's (`busy` after it).
    ///
    /// Fails with `cannotOpen` when the server cannot be reached or refuses the login, `schemaTooNew`.
    public static func openPostgres(uri: String, lockTimeout: Duration = .seconds(5)) throws -> FlagStore {
        let shown = displayName(of: uri)
        func connect(_ configure: (Database) throws -> Void) throws -> Database {
            do {
                let database = try Database(postgres: uri, lockTimeout: lockTimeout)
                try configure(database)
                return database
            } catch let error as DatabaseError {
                throw FlagStoreError.cannotOpen(path: shown, cause: error)
            }
        }
        let writer = try connect { try Schema.migrate($0, path: shown) }
        let reader = try connect { _ = try Schema.postgresVersion($0) }
        return FlagStore(path: uri, writer: writer, reader: reader)
    }

    /// `location` fit for logs and errors: a PostgreSQL URI's password (`user:secret@` or `password=`) masked.
    public static func displayName(of location: String) -> String {
        guard isPostgresURI(location), let scheme = location.range(of: "://") else { return location }
        var text = location
        let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
        if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
           let colon = text[scheme.upperBound..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("password=") ? "password=***" : String($0) }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        return text
    }

    /// Opens one connection and runs `configure`, turning SQLite failures into the store's open errors.
    private static func connect(path: String, mode: Database.Mode, busyTimeout: Duration,
                                configure: (Database) throws -> Void) throws -> Database {
        do {
            let database = try Database(path: path, mode: mode, busyTimeout: busyTimeout)
            try configure(database)
            return database
        } catch let error as DatabaseError {
            throw error.isCorruption ? FlagStoreError.notADatabase(path: path, cause: error)
                                     : FlagStoreError.cannotOpen(path: path, cause: error)
        }
    }

    /// Closes both connections. Any later call fails with a `database` error (`SQLITE_MISUSE`).
    public func close() {
        writeLock.withLock { _ in writer.close() }
        readLock.withLock { _ in reader.close() }
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
            func readOnly() throws -> Bool {
                guard isPostgres else { _ = try database.queryFirst("SELECT 1") { $0.int(0) }; return false }
                return try database.queryFirst("SELECT current_setting('transaction_read_only')") { $0.text(0) } != "off"
            }
            let isReadOnly: Bool
            do {
                isReadOnly = try readOnly()
            } catch let error as DatabaseError where error.isUnavailable && !error.isConnectFailure {
                isReadOnly = try readOnly()
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
        try database.run("INSERT INTO audit (at, actor, action, environment, detail) VALUES (?, ?, ?, ?, ?)",
                         [.integer(currentMilliseconds()), .text(actor), .text(action), .optionalText(environment), .text(detail)])
    }
}
