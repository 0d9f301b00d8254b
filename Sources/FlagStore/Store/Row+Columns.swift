import CSQLite

/// Reading the current row by column name, so a query's column list can change without every reader's
/// offsets shifting (the store's newer tables are read this way; the hot publish path keeps indexes).
extension Row {
    /// The 0-based index of the result column called `name` (its `AS` alias, or its own name).
    ///
    /// Throws `SQLITE_RANGE` with the SQL when the statement has no such column: a mistake in the store's own
    /// code, reported rather than read as NULL.
    package func columnIndex(_ name: String) throws -> Int32 {
        let index: Int32?
        switch self {
        case .sqlite(let statement): index = statement.columnIndex(name)
        case .postgres(let result): index = result.columnIndex(name)
        }
        guard let index else {
            throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "no result column named \(name)", sql: sql)
        }
        return index
    }

    /// Whether column `name` is NULL in the current row.
    package func isNull(_ name: String) throws -> Bool { isNull(try columnIndex(name)) }

    /// Column `name` as an integer (0 for NULL).
    package func int64(_ name: String) throws -> Int64 { int64(try columnIndex(name)) }

    /// Column `name` as an integer, or nil for NULL.
    package func optionalInt64(_ name: String) throws -> Int64? {
        let index = try columnIndex(name)
        return isNull(index) ? nil : int64(index)
    }

    /// Column `name` as `Int`.
    package func int(_ name: String) throws -> Int { int(try columnIndex(name)) }

    /// Column `name` as `Int`, or nil for NULL.
    package func optionalInt(_ name: String) throws -> Int? { optionalInt(try columnIndex(name)) }

    /// Column `name` as a boolean stored as 0 or 1.
    package func bool(_ name: String) throws -> Bool { int64(try columnIndex(name)) != 0 }

    /// Column `name` as text ("" for NULL).
    package func text(_ name: String) throws -> String { text(try columnIndex(name)) }

    /// Column `name` as text, or nil for NULL.
    package func optionalText(_ name: String) throws -> String? { optionalText(try columnIndex(name)) }

    /// Column `name` as bytes.
    package func blob(_ name: String) throws -> [UInt8] { blob(try columnIndex(name)) }
}
