import CSQLite

/// A failure reported by SQLite or PostgreSQL, with everything needed to tell what went wrong and where.
///
/// The wrapper (`Database`, `SQLiteConnection`, `PostgresConnection`) throws only this type. A PostgreSQL error keeps
/// its SQLSTATE (`sqlState`, https://www.postgresql.org/docs/current/errcodes-appendix.html) and has result
/// code `SQLITE_ERROR`; the predicates below answer for both engines. `extendedResultCode` keeps the detail that
/// the primary code loses (`SQLITE_BUSY_SNAPSHOT` vs `SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE` vs
/// `SQLITE_CONSTRAINT_CHECK`, `SQLITE_IOERR_FSYNC`, ...): see https://sqlite.org/rescode.html.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, `SQLITE_NOTADB`, ...).
    public let resultCode: Int32
    /// The extended result code; its low 8 bits are `resultCode`.
    public let extendedResultCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), or our own when the failure is ours.
    public let message: String
    /// The SQL that failed, when a statement was involved.
    public let sql: String?
    /// PostgreSQL's five-character SQLSTATE (`23505`, `08006`, ...); nil for SQLite errors.
    public let sqlState: String?

    /// An error with explicit codes; the primary code is derived from the extended one.
    package init(extendedResultCode: Int32, message: String, sql: String?) {
        self.resultCode = extendedResultCode & 0xff
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
        self.sqlState = nil
    }

    /// A PostgreSQL error with its SQLSTATE.
    package init(sqlState: String, message: String, sql: String?) {
        self.resultCode = SQLITE_ERROR
        self.extendedResultCode = SQLITE_ERROR
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// The error SQLite currently records for `connection`, after a call returned `code`.
    ///
    /// `code` is used when the connection is gone (a failed open may leave a handle whose
    /// `sqlite3_extended_errcode` is still right, but a nil handle has none).
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        if let connection {
            let extended = sqlite3_extended_errcode(connection)
            // The connection's last error can be older than `code` when the failing call does not
            // set it (sqlite3_backup_step reports on the destination, for example): prefer `code`.
            let useConnection = (extended & 0xff) == (code & 0xff)
            self.init(
                extendedResultCode: useConnection ? extended : code,
                message: useConnection ? String(cString: sqlite3_errmsg(connection)) : DatabaseError.describe(code),
                sql: sql)
        } else {
            self.init(extendedResultCode: code, message: DatabaseError.describe(code), sql: sql)
        }
    }

    /// SQLite's English text for a result code (`sqlite3_errstr`).
    static func describe(_ code: Int32) -> String {
        String(cString: sqlite3_errstr(code))
    }

    /// True for `SQLITE_BUSY` and `SQLITE_LOCKED` (any extended variant): another connection holds a lock
    /// past the busy timeout.
    /// PostgreSQL: a lock wait or statement timeout, a serialization failure or a deadlock (`55P03`, `57014`,
    /// `40001`, `40P01`): retrying later may succeed.
    public var isBusy: Bool {
        if let sqlState { return ["55P03", "57014", "40001", "40P01"].contains(sqlState) }
        return resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED
    }

    /// True for `SQLITE_NOTADB` and `SQLITE_CORRUPT`: the file is not a usable SQLite database; PostgreSQL's
    /// `XX001`/`XX002` (data or index corrupted).
    public var isCorruption: Bool {
        if let sqlState { return sqlState == "XX001" || sqlState == "XX002" }
        return resultCode == SQLITE_NOTADB || resultCode == SQLITE_CORRUPT
    }

    /// True for `SQLITE_CONSTRAINT_UNIQUE` and `SQLITE_CONSTRAINT_PRIMARYKEY`, and PostgreSQL's `23505`.
    public var isUniqueViolation: Bool {
        if let sqlState { return sqlState == "23505" }
        return extendedResultCode == CSQLITE_CONSTRAINT_UNIQUE || extendedResultCode == CSQLITE_CONSTRAINT_PRIMARYKEY
    }

    /// PostgreSQL only: the server cannot be reached or cannot take writes now: a connection failure (class `08`),
    /// the server shutting down or starting (`57P01`-`57P03`), or a read-only transaction on a standby (`25006`,
    /// after a failover the old primary answers so until the connection finds the new one).
    public var isUnavailable: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006"].contains(sqlState)
    }

    /// PostgreSQL only: no connection could be made (`08001`, from `PostgresConnection`'s connect or its wait after a
    /// failed one). Trying again at once would connect again, and wait again: callers that retry a lost session do
    /// not retry this.
    public var isConnectFailure: Bool { sqlState == "08001" }

    /// One line: codes (or SQLSTATE), message and SQL.
    public var description: String {
        var text = sqlState.map { "PostgreSQL error \($0): \(message)" }
            ?? "SQLite error \(resultCode) (extended \(extendedResultCode)): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}
