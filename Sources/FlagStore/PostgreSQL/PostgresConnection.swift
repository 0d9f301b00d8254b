import CLibPQ
import Glibc
import Synchronization

/// One PostgreSQL connection (libpq), the counterpart of `SQLiteConnection`: `Database.postgres`.
///
/// Parameters are always bound (text format, blobs in binary), never spliced into SQL text. The store's SQL is
/// written with SQLite's `?` placeholders; each distinct text is translated once to PostgreSQL's `$1, $2, ...` and
/// cached, and prepared once per session. Errors are `DatabaseError` with the SQLSTATE and the SQL.
///
/// Round trips: statements whose answer the caller does not need (a read's BEGIN, savepoints, a publish's inserts,
/// audit lines, `pg_notify`) are queued (`enqueue`) and sent with the next statement whose answer is needed, or with
/// COMMIT, in one pipeline (`PostgresConnection+Exchange`): a group commit of any number of flips on one environment
/// costs two round trips (BEGIN with the write lock and the environment's head, then everything else with COMMIT), or
/// one when the writer knows the head (`FlagStore.HeadGuard`: the server checks it in the same pipeline).
///
/// Deadline: every call waits for the server at most `timeout` (plus `lock_timeout` when a statement may wait for a
/// lock); past it the connection is closed and the call fails with SQLSTATE `08006` (`08007` for a COMMIT), which
/// `DatabaseError.isUnavailable` reports. `statement_timeout` would not do: a stopped server enforces nothing.
///
/// Threading: like `SQLiteConnection`, not `Sendable`; one serial context at a time.
///
/// Reconnection: when the connection is lost (or, after a failover, answers as a read-only standby), the
/// failing call throws an `isUnavailable` error and the next call outside a transaction connects again with
/// the same connection string, so a multi-host URI with `target_session_attrs=read-write` finds the new
/// primary by itself. After a connect that failed, calls within `retryDelay` (50 ms, doubling up to
/// `maximumRetryDelay`, 500 ms) fail at once with that failure instead of connecting again: while the database
/// is away no caller waits on a connect attempt another caller just made, yet a promoted standby is found
/// within half a second.
package final class PostgresConnection {
    /// The `PGconn*`; nil after `close()` or a lost connection.
    private(set) var handle: OpaquePointer?
    /// The connection string or URI as given (may hold a password: never logged, see `FlagStore.displayName`).
    private let conninfo: String
    /// SQL texts with `?` placeholders to their `$n` form.
    private var translations: [String: String] = [:]
    /// Set by a connection-level failure: connect again before the next statement.
    var needsReconnect = false
    /// How many times this value has connected (1 after `init`): a listener LISTENs again when it grows.
    private(set) var connections = 1
    /// The server process of the current session (`PQbackendPID`), readable from any thread: the node's listener
    /// skips the notifications of its own writer's commits (`StoreListener`).
    package let session = PostgresSession()
    /// `lock_timeout` of every session: how long a write waits for another node's write lock (SQLite's busy timeout)
    /// before failing with `55P03` (busy).
    let lockTimeoutNanoseconds: UInt64
    /// How long a call waits for the server's answer (beyond `lock_timeout` when it may wait for a lock).
    let timeoutNanoseconds: UInt64
    /// The last failed connect (or unanswered call) and when the next connect may be tried (monotonic nanoseconds);
    /// nil after a success.
    var connectFailure: (error: DatabaseError, retryAt: UInt64, delay: UInt64)?
    /// Statements queued for the next exchange (`enqueue`), all of the open transaction.
    var pending: [PostgresStatement] = []
    /// A BEGIN is among `pending`: the transaction is open for the caller though the server has not seen it.
    var pendingBegin = false
    /// The session (`connections`) the open transaction began on, once the server has seen its BEGIN: a statement of it
    /// is never sent on another session (it would run outside any transaction, its lock and its atomicity).
    var transactionSession: Int?
    /// Channel and payload of every `pg_notify` of the open transaction: the server sends one notification per
    /// distinct pair at commit anyway, so a second one is not sent.
    var notified: Set<String> = []
    /// Prepared statements of this session: SQL (and argument types) to name.
    var preparedStatements: [String: String] = [:]
    /// Names handed out, for the next one.
    var preparedStatementsMade = 0
    /// Round trips to the server since `init` (each exchange is one), for tests and measurements.
    package internal(set) var roundTrips = 0
    /// Statements sent to the server since `init`, for tests and measurements.
    package internal(set) var statementsSent = 0

    /// At most this many statements are prepared per session; others are sent unnamed (texts built at run time, such
    /// as the audit query's filters, would otherwise fill the server's memory).
    static let preparedStatementCapacity = 256
    /// The first wait after a failed connect before the next is tried; it doubles with each failure in a row.
    package static let retryDelay: Duration = .milliseconds(50)
    /// The longest wait between two connect attempts while the database stays away.
    package static let maximumRetryDelay: Duration = .milliseconds(500)
    /// How long a call waits for the server by default (`flagserver --database-timeout`).
    package static let defaultTimeout: Duration = .seconds(5)

    /// libpq settings given before the connection string's own, which win when it has them:
    /// - `connect_timeout` 3 s, per host: a host that does not answer at all (its machine is gone,
    ///   packets dropped, or the server stopped) costs each connect this long before libpq tries the next host of a
    ///   multi-host URI. Not libpq's minimum, 2 s: a connect to a live server over its unix socket can take longer on a
    ///   loaded machine (libpq then fails with an empty message), and a server slow to accept after a failover must not
    ///   be dropped for it; `deploy/cluster` sets 3 s too;
    /// - TCP keepalives (5 s idle, then 3 probes 2 s apart) and `tcp_user_timeout` 10 s, so a session to a machine that
    ///   vanished fails within about 10 s instead of the kernel's ~15 minutes of retransmissions (an idle `LISTEN`
    ///   connection would otherwise never notice). Unix sockets ignore all but `connect_timeout`.
    /// - `application_name` `flagserver` (`pg_stat_activity`).
    static let defaultParameters: [(keyword: String, value: String)] = [
        ("connect_timeout", "3"), ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "10000"), ("application_name", "flagserver"),
    ]

    /// Connects to `conninfo` (a `postgresql://` URI or `key=value` string, libpq's syntax, several hosts included),
    /// with `defaultParameters` where the string sets nothing else. `timeout`: how long any call waits for an answer.
    package init(conninfo: String, lockTimeout: Duration = .seconds(5), timeout: Duration = PostgresConnection.defaultTimeout) throws {
        self.conninfo = conninfo
        lockTimeoutNanoseconds = MonotonicClock.nanoseconds(max(lockTimeout, .milliseconds(1)))
        timeoutNanoseconds = MonotonicClock.nanoseconds(max(timeout, .milliseconds(1)))
        let handle = try connect()
        self.handle = handle
        session.backendPID.store(PQbackendPID(handle), ordering: .relaxed)
    }

    deinit { close() }

    /// Closes the connection; later calls fail with SQLSTATE `08003` (connection does not exist).
    package func close() {
        isClosed = true
        drop()
    }

    /// Set by `close()`: never connect again.
    private var isClosed = false

    /// Closes the current session (no cancel request, no waiting): the next call connects again. What was queued or
    /// prepared belonged to it.
    func drop() {
        if let handle { PQfinish(handle) }
        handle = nil
        pending = []
        pendingBegin = false
        notified = []
        preparedStatements = [:]
    }

    /// The session compresses the values it stores out of line (every version's document: TOAST, over ~2 KB) with lz4
    /// where the server has it (PostgreSQL 14 and later, built with lz4 as Debian's is), not with the default pglz:
    /// compressing each flip's whole document was most of PostgreSQL's CPU per flip (Benchmarks/RESULTS.md, Cluster).
    /// Set only where `pg_settings` lists lz4 among the values, so a server without it keeps pglz instead of failing
    /// the connect; values already stored keep their method, and reading either needs nothing.
    static let toastCompression = """
        SELECT set_config('default_toast_compression', 'lz4', false) FROM pg_settings
        WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)
        """

    /// A new session: libpq's connect (bounded by `connect_timeout`), non-blocking from then on, and `lock_timeout` and
    /// `toastCompression` set in a round trip of their own (not queued with the first transaction: a rolled-back
    /// transaction would undo them).
    private func connect() throws -> OpaquePointer {
        // Keywords are read in order and later ones win; `dbname` is expanded (expand_dbname = 1) into the
        // URI's own parameters, so defaults go first.
        let keywords = Self.defaultParameters.map(\.keyword) + ["dbname"]
        let values = Self.defaultParameters.map(\.value) + [conninfo]
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else {
            throw DatabaseError(sqlState: "08001", message: "libpq could not allocate a connection", sql: nil)
        }
        guard PQstatus(connection) == CONNECTION_OK, PQsetnonblocking(connection, 1) == 0 else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw DatabaseError(sqlState: "08001", message: "cannot connect: \(message)", sql: nil)
        }
        // Notices (e.g. "relation already exists, skipping") are not errors; keep them off standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        let previous = handle
        handle = connection
        defer { if handle == connection { handle = previous } }
        do {
            _ = try exchange([PostgresStatement(sql: "SET lock_timeout = \(lockTimeoutNanoseconds / 1_000_000)"),
                              PostgresStatement(sql: Self.toastCompression)], on: connection)
        } catch let error as DatabaseError {
            if handle == connection { PQfinish(connection) }
            handle = nil
            throw DatabaseError(sqlState: "08001", message: "cannot set up the session: \(error.message)", sql: nil)
        }
        return connection
    }

    /// The open connection, connecting again first when the last one was lost and no transaction is open; within
    /// the wait after a failed connect, that failure again (`08001`) without trying.
    func liveConnection(for sql: String?) throws -> OpaquePointer {
        if let handle, !needsReconnect, PQstatus(handle) == CONNECTION_OK { return handle }
        guard !isClosed else {
            throw DatabaseError(sqlState: "08003", message: "connection is closed", sql: sql)
        }
        drop()
        let now = MonotonicClock.nanoseconds()
        if let connectFailure, now < connectFailure.retryAt { throw connectFailure.error }
        let fresh: OpaquePointer
        do {
            fresh = try connect()
        } catch let error as DatabaseError {
            let first = MonotonicClock.nanoseconds(Self.retryDelay)
            let delay = connectFailure.map { min($0.delay * 2, MonotonicClock.nanoseconds(Self.maximumRetryDelay)) } ?? first
            connectFailure = (error, MonotonicClock.nanoseconds() + delay, delay)
            throw error
        }
        connectFailure = nil
        handle = fresh
        needsReconnect = false
        connections += 1
        session.backendPID.store(PQbackendPID(fresh), ordering: .relaxed)
        return fresh
    }

    /// The server this connection is on (`host:port` as libpq reached it, a socket directory for a unix socket),
    /// or nil while it is not connected: after a failover, which host of a multi-host URI is the primary now.
    package var server: String? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        let host = PQhost(handle).map { String(cString: $0) } ?? "?"
        let port = PQport(handle).map { String(cString: $0) } ?? "?"
        return "\(host):\(port)"
    }

    /// Connects again now when the last connection was lost (as the next statement would), so that a caller can set
    /// up the new session first (`StoreListener` LISTENs again); `08001` when it cannot.
    package func reconnectIfNeeded() throws {
        _ = try liveConnection(for: nil)
    }

    /// Whether a transaction is open (or failed and not yet rolled back), BEGIN queued included.
    package var isInTransaction: Bool {
        if pendingBegin { return true }
        guard let handle, !needsReconnect else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs one statement with `arguments` bound to `?` placeholders, after the queued ones in the same round trip, and
    /// returns its result, whose rows are read through `Row.postgres`.
    package func result(_ sql: String, _ arguments: [DatabaseValue]) throws -> PostgresResult {
        guard let result = try answer(PostgresStatement(sql: sql, arguments: arguments)) else {
            throw DatabaseError(sqlState: "08006", message: "no result", sql: sql)
        }
        return result
    }

    /// Queues one statement of the open transaction whose answer the caller does not need: it is sent with the next
    /// statement that needs one (or COMMIT), and its error, if any, is thrown there (the transaction is then
    /// aborted and rolled back whole). Outside a transaction it runs at once.
    /// `row`: a row of a multi-row INSERT (`Database.enqueueRow`).
    package func enqueue(_ sql: String, _ arguments: [DatabaseValue] = [], row: Bool = false) throws {
        guard isInTransaction else {
            _ = try result(sql, arguments)
            return
        }
        pending.append(PostgresStatement(sql: sql, arguments: arguments, row: row))
    }

    /// `sql` with each `?` outside quotes replaced by `$1`, `$2`, ... (cached per text).
    func translated(_ sql: String) -> String {
        if let cached = translations[sql] { return cached }
        var output = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                output.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                output.append(character)
            } else if character == "?" {
                number += 1
                output += "$\(number)"
            } else {
                output.append(character)
            }
        }
        translations[sql] = output
        return output
    }

    /// The socket, for waiting on notifications (`LISTEN`).
    package var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Reads what the server sent and returns the notifications received since the last call (channel, payload).
    /// Throws when the connection is lost.
    package func notifications() throws -> [(channel: String, payload: String, sender: Int32)] {
        let connection = try liveConnection(for: nil)
        // A session the server ended (terminated, shut down) sends its FATAL message before closing: then input is
        // consumed fine but the connection is bad.
        guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else {
            needsReconnect = true
            throw DatabaseError(sqlState: "08006", message: Self.trimmed(PQerrorMessage(connection)), sql: nil)
        }
        var received: [(channel: String, payload: String, sender: Int32)] = []
        while let notify = PQnotifies(connection) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra), notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown libpq error" }
        var text = String(cString: message)
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}

/// Calls `body` with a C array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
