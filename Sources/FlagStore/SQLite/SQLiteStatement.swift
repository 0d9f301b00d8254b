import CSQLite

/// A prepared SQLite statement, cached by its `SQLiteConnection` and used only on that connection's serial context.
///
/// Binds copy their bytes (`SQLITE_TRANSIENT`), so Swift arrays and strings need not outlive the call. The shared
/// store code reads its rows through `Row.sqlite`.
package final class SQLiteStatement {
    /// The `sqlite3_stmt`, finalized in `deinit`.
    let handle: OpaquePointer
    /// The connection, for error reporting.
    let connection: OpaquePointer
    /// The SQL text, kept for errors.
    package let sql: String
    /// Result column names to their indexes, built at the first access by name (`Row+Columns`).
    private var columnIndexes: [String: Int32]?

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw DatabaseError(code: code, connection: connection, sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and clears its bindings so it can run again with new arguments.
    package func reset() {
        // sqlite3_reset returns the error of the last step, which was already reported by `step()`.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1...n, replacing any earlier bindings.
    package func bind(_ values: [DatabaseValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw DatabaseError(
                extendedResultCode: SQLITE_RANGE,
                message: "statement takes \(expected) arguments, \(values.count) given", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    package func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(let string):
            // An explicit byte count, not -1: text containing U+0000 must not be cut at the NUL.
            var text = string
            code = text.withUTF8 { utf8 in
                guard let base = utf8.baseAddress, utf8.count > 0 else {
                    return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { pointer in
                    sqlite3_bind_text64(handle, index, pointer, sqlite3_uint64(utf8.count), csqlite_transient(),
                                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                // A zero-length blob must still be a blob, not NULL: sqlite3_bind_zeroblob does that.
                guard let base = raw.baseAddress, raw.count > 0 else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(raw.count), csqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: connection, sql: sql) }
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseError(code: code, connection: connection, sql: sql)
        }
    }

    /// Whether column `index` (0-based) of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL, as SQLite converts).
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a double.
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as text ("" for NULL).
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes (empty for NULL or a zero-length blob).
    package func blob(_ index: Int32) -> [UInt8] {
        // sqlite3_column_blob must be called before sqlite3_column_bytes (https://sqlite.org/c3ref/column_blob.html).
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The 0-based index of the result column called `name` (its `AS` alias, or its own name), nil when there is none.
    func columnIndex(_ name: String) -> Int32? {
        if let columnIndexes { return columnIndexes[name] }
        var indexes: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            if let pointer = sqlite3_column_name(handle, index) { indexes[String(cString: pointer)] = index }
        }
        columnIndexes = indexes
        return indexes[name]
    }
}
