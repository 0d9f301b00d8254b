import Foundation

/// What the store does its own way on a SQLite file (`FlagStore.Engine.sqlite`): opening it (WAL, `synchronous=FULL`,
/// foreign keys), the online backup and restore, `integrity_check`, the disk's free space, and the token stamp. One
/// process writes the file, so nothing is told to other nodes and the jobs need no lease.
struct SQLiteEngine {
    /// The database file.
    let path: String

    /// Opens (creating when needed) the store at `path`: creates the parent directory, checks that the file is a
    /// SQLite database, switches to WAL (checking that SQLite really did), and migrates the schema.
    ///
    /// Fails with `cannotCreateDirectory`, `cannotOpen`, `notADatabase`, `walUnavailable` or `schemaTooNew`, never
    /// by crashing, whatever is at `path`.
    static func open(path: String, busyTimeout: Duration) throws -> FlagStore {
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
        let writer = try connect(path: path, mode: .readWriteCreate, busyTimeout: busyTimeout) { connection in
            let mode = try connection.setJournalMode("WAL")
            guard mode == "wal" else { throw FlagStoreError.walUnavailable(path: path, journalMode: mode) }
            // FULL: the WAL is fsynced at every commit, so an acknowledged publish survives power loss
            // (https://sqlite.org/pragma.html#pragma_synchronous).
            try connection.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
            guard try connection.queryFirst("PRAGMA foreign_keys", row: { $0.int(0) }) == 1 else {
                throw DatabaseError(extendedResultCode: 1, message: "foreign_keys could not be enabled", sql: nil)
            }
            try SQLiteMigrations.migrate(connection, path: path)
        }
        let reader = try connect(path: path, mode: .readOnly, busyTimeout: busyTimeout) { connection in
            _ = try connection.userVersion()
        }
        return FlagStore(location: path, engine: .sqlite(SQLiteEngine(path: path)), writer: .sqlite(writer), reader: .sqlite(reader))
    }

    /// Opens one connection and runs `configure`, turning SQLite failures into the store's open errors.
    private static func connect(path: String, mode: SQLiteConnection.Mode, busyTimeout: Duration,
                                configure: (SQLiteConnection) throws -> Void) throws -> SQLiteConnection {
        do {
            let connection = try SQLiteConnection(path: path, mode: mode, busyTimeout: busyTimeout)
            try configure(connection)
            return connection
        } catch let error as DatabaseError {
            throw error.isCorruption ? FlagStoreError.notADatabase(path: path, cause: error)
                                     : FlagStoreError.cannotOpen(location: path, cause: error)
        }
    }

    /// A file beside the database that each token created or revoked through the store grows by one byte, after the
    /// commit (`FlagStore.tokensStampPath`).
    var tokensStampPath: String { path + "-tokens" }

    /// The file's write connection answers a query (a file that cannot take writes shows at the next commit).
    func writerIsReadOnly(_ database: Database) throws -> Bool {
        _ = try database.queryFirst("SELECT 1") { $0.int(0) }
        return false
    }

    /// `FlagStore.backup(to:)`: the online backup API from a read connection of its own into
    /// `<destination>.partial`, checked with `integrity_check`, then renamed into place.
    func backup(to destinationPath: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: destinationPath) {
            throw FlagStoreError.backupDestinationExists(path: destinationPath)
        }
        let partial = destinationPath + ".partial"
        try? manager.removeItem(atPath: partial)
        do {
            let source = try SQLiteConnection(path: path, mode: .readOnly)
            let destination = try SQLiteConnection(path: partial, mode: .readWriteCreate)
            try destination.execute("PRAGMA synchronous=FULL")
            try source.backup(into: destination)
            let check = try destination.integrityCheck()
            guard check == ["ok"] else {
                throw DatabaseError(extendedResultCode: 11, message: "backup copy failed integrity_check: \(check)", sql: nil)
            }
            destination.close()
            source.close()
            if rename(partial, destinationPath) != 0 {
                let reason = String(cString: strerror(errno))
                throw DatabaseError(extendedResultCode: 10, message: "rename \(partial) -> \(destinationPath): \(reason)", sql: nil)
            }
        } catch {
            try? manager.removeItem(atPath: partial)
            throw FlagStoreError.wrap(error)
        }
    }

    /// `FlagStore.restore(from:actor:)`: the backup at `sourcePath`, after its `integrity_check`, copied into the
    /// writer connection in one step, migrated, then a new epoch larger than both the backup's and the one before.
    func restore(_ store: FlagStore, from sourcePath: String, actor: String) throws -> Int64 {
        guard FileManager.default.fileExists(atPath: sourcePath) else {
            throw FlagStoreError.invalidArgument(name: "--from", reason: "no file at \(sourcePath)")
        }
        do {
            let source = try SQLiteConnection(path: sourcePath, mode: .readOnly)
            defer { source.close() }
            let check = try source.integrityCheck()
            guard check == ["ok"] else {
                throw FlagStoreError.notADatabase(path: sourcePath, cause: DatabaseError(
                    extendedResultCode: 11, message: "integrity_check: " + check.prefix(3).joined(separator: "; "), sql: nil))
            }
            let before = try store.epoch()
            try store.write { database in
                let connection = try database.sqlite()
                try source.backup(into: connection)
                try SQLiteMigrations.migrate(connection, path: path)
            }
            return try store.startNewEpoch(actor: actor, atLeast: before,
                                           reason: "restored from \((sourcePath as NSString).lastPathComponent)")
        } catch {
            throw FlagStoreError.wrap(error)
        }
    }

    /// `PRAGMA integrity_check` of the whole file.
    func integrityCheck(_ database: Database) throws -> [String] {
        try database.sqlite().integrityCheck()
    }

    /// `integrity_check` of every table except `FlagStore.historyTables`, in time independent of the history's length.
    func startupCheck(_ store: FlagStore) throws -> [String] {
        try store.read { database in
            let connection = try database.sqlite()
            let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.text(0) }
            var problems: [String] = []
            for table in tables where !FlagStore.historyTables.contains(table) && !table.hasPrefix("sqlite_") {
                let lines = try connection.integrityCheck(table: table)
                if lines != ["ok"] { problems += lines }
            }
            return problems.isEmpty ? ["ok"] : problems
        }
    }

    /// The file's filesystem mounted read-only, or with less than `FlagStore.minimumFreeBytes` free (statvfs(3) of
    /// its directory); nil when neither holds.
    func writeProblem() -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else {
            return "statvfs \(directory): \(String(cString: strerror(errno)))"
        }
        if info.f_flag & UInt(ST_RDONLY) != 0 { return "the filesystem holding \(path) is read-only" }
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        if free < FlagStore.minimumFreeBytes { return "the filesystem holding \(path) is full (\(free) bytes free)" }
        return nil
    }
}

extension Database {
    /// This connection as SQLite's, for what only SQLite has (pragmas, the backup API). Only `SQLiteEngine` asks,
    /// and its store's connections are SQLite's; `SQLITE_MISUSE` otherwise.
    func sqlite() throws -> SQLiteConnection {
        guard case .sqlite(let connection) = self else {
            throw DatabaseError(extendedResultCode: 21, message: "a SQLite operation on a PostgreSQL connection", sql: nil)
        }
        return connection
    }
}
