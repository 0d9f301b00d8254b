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

    /// The database file.
    public let path: String
    private let writeLock = PThreadMutex(())
    private let writer: Database
    private let readLock = PThreadMutex(())
    private let reader: Database

    private init(path: String, writer: Database, reader: Database) {
        self.path = path
        self.writer = writer
        self.reader = reader
    }

    /// Opens (creating when needed) the store at `path`: creates the parent directory, checks that the file
    /// is a SQLite database, switches to WAL (checking that SQLite really did), and migrates the schema.
    ///
    /// Fails with `cannotCreateDirectory`, `cannotOpen`, `notADatabase`, `walUnavailable` or `schemaTooNew`,
    /// never by crashing, whatever is at `path`.
    public static func open(path: String, busyTimeout: Duration = .seconds(5)) throws -> FlagStore {
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
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readLock.withLock { _ in
            do { return try body(reader) } catch { throw FlagStoreError.wrap(error) }
        }
    }

    /// Answers when the database does (for `/readyz`): one trivial query on the read connection.
    public func ping() throws {
        _ = try read { try $0.queryFirst("SELECT 1") { $0.int(0) } }
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

    // MARK: Audit

    /// Appends one audit line inside the caller's transaction, so it commits or rolls back with the change.
    static func audit(_ database: Database, actor: String, action: String, environment: String?, detail: String) throws {
        try database.run("INSERT INTO audit (at, actor, action, environment, detail) VALUES (?, ?, ?, ?, ?)",
                         [.integer(currentMilliseconds()), .text(actor), .text(action), .optionalText(environment), .text(detail)])
    }
}
