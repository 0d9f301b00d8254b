/// The current row of a query, as `Database.query` hands it to its row closure: a stepped SQLite statement or a
/// PostgreSQL result at one row. The same readers on both engines: SQLite's conversions (0 for a NULL integer,
/// "" for NULL text) hold on PostgreSQL too, so the shared code reads rows without asking which engine it is.
package enum Row {
    /// A SQLite statement on its current row.
    case sqlite(SQLiteStatement)
    /// A PostgreSQL result on its row `PostgresResult.row`.
    case postgres(PostgresResult)

    /// The SQL text, for errors.
    package var sql: String {
        switch self {
        case .sqlite(let statement): statement.sql
        case .postgres(let result): result.sql
        }
    }

    /// Whether column `index` (0-based) of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        switch self {
        case .sqlite(let statement): statement.isNull(index)
        case .postgres(let result): result.isNull(index)
        }
    }

    /// Column `index` as an integer (0 for NULL; a PostgreSQL boolean reads as 1 or 0, as SQLite returns it).
    package func int64(_ index: Int32) -> Int64 {
        switch self {
        case .sqlite(let statement): statement.int64(index)
        case .postgres(let result): result.int64(index)
        }
    }

    /// Column `index` as `Int`.
    package func int(_ index: Int32) -> Int {
        Int(int64(index))
    }

    /// Column `index` as an integer, or nil for NULL.
    package func optionalInt(_ index: Int32) -> Int? {
        isNull(index) ? nil : int(index)
    }

    /// Column `index` as a double.
    package func double(_ index: Int32) -> Double {
        switch self {
        case .sqlite(let statement): statement.double(index)
        case .postgres(let result): result.double(index)
        }
    }

    /// Column `index` as text ("" for NULL).
    package func text(_ index: Int32) -> String {
        switch self {
        case .sqlite(let statement): statement.text(index)
        case .postgres(let result): result.text(index)
        }
    }

    /// Column `index` as text, or nil for NULL.
    package func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` as bytes (empty for NULL or a zero-length blob).
    package func blob(_ index: Int32) -> [UInt8] {
        switch self {
        case .sqlite(let statement): statement.blob(index)
        case .postgres(let result): result.blob(index)
        }
    }
}
