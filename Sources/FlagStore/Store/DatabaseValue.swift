/// A value bound to a statement's parameter or read back, on either engine: one case per kind of value the store
/// keeps (SQLite's storage classes, https://sqlite.org/datatype3.html; on PostgreSQL `bigint`, `float8`, `text` and
/// `bytea`, bound by `PostgresConnection`).
package enum DatabaseValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])
}

extension DatabaseValue {
    /// `.integer`, or `.null` for nil.
    package static func optionalInteger(_ value: Int?) -> DatabaseValue {
        value.map { .integer(Int64($0)) } ?? .null
    }

    /// `.text`, or `.null` for nil.
    package static func optionalText(_ value: String?) -> DatabaseValue {
        value.map { .text($0) } ?? .null
    }
}
