import Foundation

/// Backup and health checks.
extension FlagStore {
    /// Writes a consistent copy of the whole database to `destinationPath` with SQLite's online backup API,
    /// while this and other connections keep writing. Refuses to overwrite an existing file.
    ///
    /// The copy is built in `<destination>.partial` from a connection of its own (so publishes are not held
    /// up), checked with `integrity_check`, then renamed into place: a crash never leaves a half copy under
    /// the final name.
    public func backup(to destinationPath: String) throws {
        if isPostgres {
            throw FlagStoreError.notSupported(operation: "backup", instead: "use pg_dump (or your PostgreSQL's base backups and WAL archive)")
        }
        let manager = FileManager.default
        if manager.fileExists(atPath: destinationPath) {
            throw FlagStoreError.backupDestinationExists(path: destinationPath)
        }
        let partial = destinationPath + ".partial"
        try? manager.removeItem(atPath: partial)
        do {
            let source = try Database(path: path, mode: .readOnly)
            let destination = try Database(path: partial, mode: .readWriteCreate)
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

    /// `PRAGMA integrity_check` of the whole file: `["ok"]` when healthy, otherwise one line per problem.
    ///
    /// On PostgreSQL there is no such pragma: the answer is `["ok"]` once the server answers and the schema is
    /// this build's (page checksums, `amcheck` and `pg_amcheck` are the server's own tools); the content hashes
    /// are checked on both engines by `damagedVersions()`.
    public func integrityCheck() throws -> [String] {
        try read { database in
            guard database.isPostgres else { return try database.integrityCheck() }
            let version = try Schema.postgresVersion(database)
            return version == Schema.migrations.count ? ["ok"] : ["schema version \(version), expected \(Schema.migrations.count)"]
        }
    }

    /// The tables that grow with history (a row, and index entries, per publish, audit line or webhook
    /// delivery): checked by `integrityCheck()` (`flagserver check`, and every backup checks its copy), not at start.
    static let historyTables: Set<String> = ["versions", "audit", "webhook_deliveries", "webhook_attempts"]

    /// What the server checks at every start, in time independent of the history's length: `integrity_check`
    /// of every table except `historyTables`. The full check of every row against every index grew with each
    /// version's audit line and its indexes (at 55,000 versions 0.96 billion instructions, 94% of a start;
    /// Benchmarks/RESULTS.md, issue #27). The versions the server serves are verified against their content
    /// hashes as they are loaded. `["ok"]` when healthy, otherwise one line per problem.
    public func startupCheck() throws -> [String] {
        // PostgreSQL has no per-table integrity_check: the same answer as `integrityCheck()` there.
        if isPostgres { return try integrityCheck() }
        return try read { database in
            let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.text(0) }
            var problems: [String] = []
            for table in tables where !Self.historyTables.contains(table) && !table.hasPrefix("sqlite_") {
                let lines = try database.integrityCheck(table: table)
                if lines != ["ok"] { problems += lines }
            }
            return problems.isEmpty ? ["ok"] : problems
        }
    }

    /// Free bytes below which the filesystem counts as full for writes: a publish appends the document,
    /// an audit row and WAL frames, and SQLite needs room for its journal.
    public static let minimumFreeBytes: UInt64 = 4 * 1024 * 1024

    /// Why a write could not commit now, judged without writing: the database's filesystem is mounted
    /// read-only, or has less than `minimumFreeBytes` free (statvfs(3) of the file's directory); nil when
    /// neither holds. Reads keep working in both cases, so `/readyz` reports them as degraded writes.
    public func writeProblem() -> String? {
        // PostgreSQL's disk is the server's; a full or read-only one shows as failing writes (503).
        if isPostgres { return nil }
        let directory = (path as NSString).deletingLastPathComponent
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else {
            return "statvfs \(directory): \(String(cString: strerror(errno)))"
        }
        if info.f_flag & UInt(ST_RDONLY) != 0 { return "the filesystem holding \(path) is read-only" }
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        if free < Self.minimumFreeBytes { return "the filesystem holding \(path) is full (\(free) bytes free)" }
        return nil
    }
}

