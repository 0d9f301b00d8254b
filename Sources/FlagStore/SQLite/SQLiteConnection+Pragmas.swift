import CSQLite

/// Pragmas the store relies on, with their results checked rather than assumed
/// (https://sqlite.org/pragma.html).
extension SQLiteConnection {
    /// Asks for `mode` and returns the journal mode SQLite actually set, lowercased.
    ///
    /// SQLite answers with the resulting mode instead of failing: an in-memory database stays `memory`,
    /// and a file system without shared-memory support keeps `delete`. Callers must check the answer.
    package func setJournalMode(_ mode: String) throws -> String {
        let result = try queryFirst("PRAGMA journal_mode=\(mode)") { $0.text(0) }
        return (result ?? "").lowercased()
    }

    /// `PRAGMA user_version`, the schema version this project's migrations maintain.
    package func userVersion() throws -> Int {
        try queryFirst("PRAGMA user_version") { $0.int(0) } ?? 0
    }

    /// Sets `PRAGMA user_version` (pragmas take no bound parameters, hence the integer literal).
    package func setUserVersion(_ version: Int) throws {
        try execute("PRAGMA user_version=\(version)")
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a healthy file, otherwise one line per problem.
    package func integrityCheck() throws -> [String] {
        try query("PRAGMA integrity_check") { $0.text(0) }
    }

    /// `PRAGMA integrity_check(TABLE)` (SQLite 3.33+): the same checks limited to one table and its indexes
    /// (the free-list and orphan-page checks of the whole file are skipped). `table` is quoted as an identifier.
    package func integrityCheck(table: String) throws -> [String] {
        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return try query("PRAGMA integrity_check(\(quoted))") { $0.text(0) }
    }

    /// Copies this whole database into `destination` with the online backup API
    /// (https://sqlite.org/backup.html), in one step so the copy is a single consistent snapshot.
    ///
    /// One `sqlite3_backup_step(-1)` reads every page inside one read transaction; in WAL mode other
    /// connections keep writing meanwhile and the copy shows the state at the step's start.
    package func backup(into destination: SQLiteConnection) throws {
        let source = try connection(for: nil)
        let target = try destination.connection(for: nil)
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw DatabaseError(code: sqlite3_extended_errcode(target), connection: target, sql: nil)
        }
        var code: Int32
        var busyRetries = 0
        repeat {
            code = sqlite3_backup_step(backup, -1)
            // The destination is ours alone; BUSY means a source lock, rare in WAL. Give up after ~5 s.
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                busyRetries += 1
                if busyRetries > 1000 { break }
                sqlite3_sleep(5)
            }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw DatabaseError(code: code, connection: target, sql: nil) }
        guard finish == SQLITE_OK else { throw DatabaseError(code: finish, connection: target, sql: nil) }
    }
}
