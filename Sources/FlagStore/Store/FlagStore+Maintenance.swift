import Foundation

/// Backup and health checks.
extension FlagStore {
    /// Writes a consistent copy of the whole database to `destinationPath` with SQLite's online backup API,
    /// while this and other connections keep writing. Refuses to overwrite an existing file. PostgreSQL:
    /// `notSupported`, naming pg_dump.
    ///
    /// The copy is built in `<destination>.partial` from a connection of its own (so publishes are not held
    /// up), checked with `integrity_check`, then renamed into place: a crash never leaves a half copy under
    /// the final name.
    public func backup(to destinationPath: String) throws {
        try engine.backup(to: destinationPath)
    }

    /// `PRAGMA integrity_check` of the whole file: `["ok"]` when healthy, otherwise one line per problem.
    ///
    /// On PostgreSQL there is no such pragma: the answer is `["ok"]` once the server answers and the schema is
    /// this build's (page checksums, `amcheck` and `pg_amcheck` are the server's own tools); the content hashes
    /// are checked on both engines by `damagedVersions()`.
    public func integrityCheck() throws -> [String] {
        try read { try engine.integrityCheck($0) }
    }

    /// The tables that grow with history (a row, and index entries, per publish, audit line, webhook
    /// delivery or App Store notification): checked by `integrityCheck()` (`flagserver check`, and every backup checks its copy), not at start.
    static let historyTables: Set<String> = ["versions", "audit", "webhook_deliveries", "webhook_attempts",
                                                 "appstore_notifications"]

    /// What the server checks at every start, in time independent of the history's length: `integrity_check`
    /// of every table except `historyTables`, whose full check of every row against every index grows with the
    /// history and would dominate a start (Benchmarks/RESULTS.md). The versions the server serves are verified
    /// against their content hashes as they are loaded. `["ok"]` when healthy, otherwise one line per problem.
    public func startupCheck() throws -> [String] {
        try engine.startupCheck(self)
    }

    /// Free bytes below which the filesystem counts as full for writes: a publish appends the document,
    /// an audit row and WAL frames, and SQLite needs room for its journal.
    public static let minimumFreeBytes: UInt64 = 4 * 1024 * 1024

    /// Why a write could not commit now, judged without writing: the database's filesystem is mounted
    /// read-only, or has less than `minimumFreeBytes` free (statvfs(3) of the file's directory); nil when
    /// neither holds. Reads keep working in both cases, so `/readyz` reports them as degraded writes.
    public func writeProblem() -> String? {
        engine.writeProblem()
    }
}
