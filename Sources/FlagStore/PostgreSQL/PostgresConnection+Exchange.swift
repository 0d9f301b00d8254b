import CLibPQ
import Glibc

/// One statement to send: its SQL as the store wrote it (`?` placeholders; errors name this text) and its arguments.
struct PostgresStatement {
    var sql: String
    var arguments: [DatabaseValue] = []
    /// The server may wait for another session's lock (up to `lock_timeout`) before it answers: the exchange's
    /// deadline is that much longer, so a lock wait ends as `55P03` (busy), as it always did, not as a lost server.
    var waitsForLock = false
    /// One row of an `INSERT ... VALUES (?, ...)` that may go with its neighbours as one statement (`coalescing`).
    var row = false
}

/// Talking to the server: every call is asynchronous libpq (`PQsend...`, `PQflush`, `PQconsumeInput`, `PQgetResult`)
/// with `poll(2)` on `PQsocket` until a deadline, so a server that stops answering (stopped, or its machine gone
/// while the TCP connection looks alive) costs a call `timeout`, never forever.
///
/// Statements go in libpq's pipeline mode (https://www.postgresql.org/docs/current/libpq-pipeline-mode.html): the
/// statements queued with `enqueue` and the one whose answer is wanted are sent together, followed by one Sync, and
/// their results read in order: one round trip. The server runs them in order and skips the rest after an error, so the
/// first error (with its statement's SQL and SQLSTATE) is the exchange's; inside a transaction that error leaves it
/// aborted, and the caller rolls the whole transaction back. Each distinct SQL text (with its argument types) is
/// prepared once per session, in the same pipeline as its first use (`PQsendPrepare`), so the server parses and plans it
/// once.
extension PostgresConnection {
    /// What one result read in an exchange belongs to.
    private struct Item {
        /// The statement's SQL as given, for errors.
        var sql: String
        /// Set for the result of a `PQsendPrepare`: the cache key and the name it gets when the server accepts it.
        var preparing: (key: String, name: String)?
    }

    /// Sends the queued statements and `final` in one round trip and returns `final`'s result (nil: the queued ones
    /// only, and the last one's result). A transaction that began in this exchange on a session found lost (the server
    /// restarted since the last call) is sent once more on a new session: nothing of it happened.
    func answer(_ final: PostgresStatement?, committing: Bool = false) throws -> PostgresResult? {
        var statements = PostgresStatement.coalescing(pending)
        if let final { statements.append(final) }
        let began = pendingBegin
        pending = []
        pendingBegin = false
        guard !statements.isEmpty else { return nil }
        do {
            let result = try exchange(statements, committing: committing)
            if began { transactionSession = connections }
            return result
        } catch let error as DatabaseError where began && !committing && error.isUnavailable && !error.isConnectFailure
                    && connectFailure == nil {
            // Not after an unanswered call (`timedOut` sets `connectFailure`): the server is there but silent, and the
            // caller hears of the deadline it met.
            let result = try exchange(statements, committing: committing)
            transactionSession = connections
            return result
        }
    }

    /// One pipeline on the live connection (connecting first when needed).
    private func exchange(_ statements: [PostgresStatement], committing: Bool) throws -> PostgresResult {
        let connection = try liveConnection(for: statements.last?.sql)
        if let transactionSession, transactionSession != connections {
            throw DatabaseError(sqlState: "08006", message: "the connection was lost inside a transaction, which the server rolled back",
                                sql: statements.last?.sql)
        }
        return try exchange(statements, on: connection, committing: committing)
    }

    /// One pipeline on `connection`: every statement, one Sync, every result read before the deadline.
    func exchange(_ statements: [PostgresStatement], on connection: OpaquePointer, committing: Bool = false) throws -> PostgresResult {
        roundTrips += 1
        statementsSent += statements.count
        let lockWait = statements.contains(where: \.waitsForLock) ? lockTimeoutNanoseconds : 0
        let deadline = MonotonicClock.nanoseconds() + timeoutNanoseconds + lockWait
        let sql = statements.last?.sql
        guard PQenterPipelineMode(connection) == 1 else { throw lost(connection, sql: sql) }
        var items: [Item] = []
        items.reserveCapacity(statements.count + 1)
        var preparing: [String: String] = [:]
        for statement in statements {
            let parameters: PostgresParameters
            do {
                parameters = try PostgresParameters(statement.arguments, sql: statement.sql)
            } catch {
                drop()
                throw error
            }
            let text = translated(statement.sql)
            let key = parameters.count == 0 ? statement.sql : statement.sql + "\u{0}" + parameters.typeSignature
            var name = preparedStatements[key] ?? preparing[key]
            if name == nil, preparedStatements.count + preparing.count < Self.preparedStatementCapacity {
                let fresh = "flagstore_\(preparedStatementsMade)"
                preparedStatementsMade += 1
                guard PQsendPrepare(connection, fresh, text, parameters.count, parameters.types) == 1 else {
                    throw lost(connection, sql: statement.sql)
                }
                items.append(Item(sql: statement.sql, preparing: (key, fresh)))
                preparing[key] = fresh
                name = fresh
            }
            let sent = parameters.withPointers { values, lengths, formats in
                if let name {
                    PQsendQueryPrepared(connection, name, parameters.count, values, lengths, formats, 0)
                } else {
                    PQsendQueryParams(connection, text, parameters.count, parameters.types, values, lengths, formats, 0)
                }
            }
            guard sent == 1 else { throw lost(connection, sql: statement.sql) }
            items.append(Item(sql: statement.sql))
        }
        guard PQpipelineSync(connection) == 1 else { throw lost(connection, sql: sql) }
        try flush(connection, until: deadline, sql: sql, committing: committing)

        var firstError: DatabaseError?
        var last: OpaquePointer?
        var handedOver = false
        // A result kept for the caller is cleared here when the exchange fails after all.
        defer { if !handedOver, let last { PQclear(last) } }
        var index = 0
        while true {
            guard let result = try nextResult(connection, until: deadline, sql: sql, committing: committing) else {
                // The end of one statement's results.
                index += 1
                guard index <= items.count else { throw lost(connection, sql: sql) }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            guard index < items.count else {
                PQclear(result)
                throw lost(connection, sql: sql)
            }
            let item = items[index]
            switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                if let preparing = item.preparing {
                    preparedStatements[preparing.key] = preparing.name
                    PQclear(result)
                } else if index == items.count - 1 {
                    last = result
                } else {
                    PQclear(result)
                }
            case PGRES_PIPELINE_ABORTED:
                // Skipped by the server after an earlier error of this exchange.
                PQclear(result)
            default:
                if firstError == nil { firstError = error(in: result, connection: connection, sql: item.sql) }
                PQclear(result)
            }
        }
        guard PQexitPipelineMode(connection) == 1 else { throw lost(connection, sql: sql) }
        if let firstError {
            failed(firstError, connection: connection)
            throw firstError
        }
        guard let kept = last, let final = statements.last else { throw lost(connection, sql: sql) }
        handedOver = true
        return PostgresResult(handle: kept, sql: final.sql)
    }

    /// Runs SQL that may hold several statements and takes no parameters (schema, `LISTEN`), in the simple query
    /// protocol (pipeline mode takes one statement at a time), after the queued statements.
    package func execute(_ sql: String) throws {
        _ = try answer(nil)
        let connection = try liveConnection(for: sql)
        roundTrips += 1
        // A schema change may wait for a lock too.
        let deadline = MonotonicClock.nanoseconds() + timeoutNanoseconds + lockTimeoutNanoseconds
        guard PQsendQuery(connection, sql) == 1 else { throw lost(connection, sql: sql) }
        try flush(connection, until: deadline, sql: sql, committing: false)
        var firstError: DatabaseError?
        while let result = try nextResult(connection, until: deadline, sql: sql, committing: false) {
            let status = PQresultStatus(result)
            if firstError == nil, status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK {
                firstError = error(in: result, connection: connection, sql: sql)
            }
            PQclear(result)
        }
        if let firstError {
            failed(firstError, connection: connection)
            throw firstError
        }
    }

    /// Writes everything libpq holds for the server, reading what it sends meanwhile (libpq's advice for non-blocking
    /// connections: a server blocked on a full output buffer would never read ours).
    private func flush(_ connection: OpaquePointer, until deadline: UInt64, sql: String?, committing: Bool) throws {
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { return }
            if flushed < 0 { throw lost(connection, sql: sql) }
            try wait(connection, for: Int16(POLLIN | POLLOUT), until: deadline, sql: sql, committing: committing)
            guard PQconsumeInput(connection) == 1 else { throw lost(connection, sql: sql) }
        }
    }

    /// The next result, reading from the socket while libpq has none complete; nil at the end of a statement's results.
    private func nextResult(_ connection: OpaquePointer, until deadline: UInt64, sql: String?, committing: Bool) throws -> OpaquePointer? {
        while PQisBusy(connection) == 1 {
            try wait(connection, for: Int16(POLLIN), until: deadline, sql: sql, committing: committing)
            guard PQconsumeInput(connection) == 1 else { throw lost(connection, sql: sql) }
        }
        return PQgetResult(connection)
    }

    /// Waits until the socket is ready for `events` or the deadline passes; past it, the connection is dropped.
    private func wait(_ connection: OpaquePointer, for events: Int16, until deadline: UInt64, sql: String?, committing: Bool) throws {
        let now = MonotonicClock.nanoseconds()
        guard now < deadline else { throw timedOut(sql: sql, committing: committing) }
        var descriptor = pollfd(fd: PQsocket(connection), events: events, revents: 0)
        // Rounded up, so a wait never polls for 0 ms and spins through its last millisecond.
        if poll(&descriptor, 1, Int32(clamping: (deadline - now + 999_999) / 1_000_000)) < 0, errno != EINTR {
            throw lost(connection, sql: sql)
        }
    }

    /// The server did not answer in time: the connection is closed without a cancel request (a stopped server would
    /// not answer that either), and the next call connects again, not before `retryDelay`, so that callers queued
    /// behind this one fail at once instead of each waiting out its own deadline. `08007` (transaction resolution
    /// unknown) when a COMMIT was among the statements: it may have committed.
    private func timedOut(sql: String?, committing: Bool) -> DatabaseError {
        drop()
        let milliseconds = timeoutNanoseconds / 1_000_000
        let error = DatabaseError(sqlState: committing ? "08007" : "08006",
                                  message: "the database did not answer within \(milliseconds) ms (the database timeout); the connection was closed"
                                      + (committing ? ": whether the transaction committed is unknown" : ""),
                                  sql: sql)
        let delay = MonotonicClock.nanoseconds(Self.retryDelay)
        connectFailure = (DatabaseError(sqlState: "08006", message: "the database did not answer within \(milliseconds) ms a moment ago",
                                        sql: nil), MonotonicClock.nanoseconds() + delay, delay)
        return error
    }

    /// The connection broke (libpq's own error, no SQLSTATE): closed, and connected again at the next call.
    private func lost(_ connection: OpaquePointer, sql: String?) -> DatabaseError {
        let error = DatabaseError(sqlState: "08006", message: Self.trimmed(PQerrorMessage(connection)), sql: sql)
        drop()
        return error
    }

    /// The error `result` carries.
    private func error(in result: OpaquePointer, connection: OpaquePointer, sql: String) -> DatabaseError {
        let state = PQresultErrorField(result, CLIBPQ_DIAG_SQLSTATE).map { String(cString: $0) }
        let message = PQresultErrorField(result, CLIBPQ_DIAG_MESSAGE_PRIMARY).map { String(cString: $0) }
            ?? Self.trimmed(PQerrorMessage(connection))
        return DatabaseError(sqlState: state ?? "08006", message: message, sql: sql)
    }

    /// After a statement failed: connect again at the next call when the failure says the server is gone or is not a
    /// primary any more; forget the prepared statements when the server says one is gone or no longer fits
    /// (`26000`, `0A000`: a schema change under a cached plan).
    private func failed(_ error: DatabaseError, connection: OpaquePointer) {
        if error.sqlState == "26000" || error.sqlState == "0A000" { preparedStatements = [:] }
        if PQstatus(connection) != CONNECTION_OK || error.isUnavailable { needsReconnect = true }
    }
}
