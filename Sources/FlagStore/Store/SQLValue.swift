/// A value SQLite can bind or return, one case per storage class (https://sqlite.org/datatype3.html).
package enum SQLValue: Sendable, Equatable {
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

extension SQLValue {
    /// `.integer`, or `.null` for nil.
    package static func optionalInteger(_ value: Int?) -> SQLValue {
        value.map { .integer(Int64($0)) } ?? .null
    }

    /// `.text`, or `.null` for nil.
    package static func optionalText(_ value: String?) -> SQLValue {
        value.map { .text($0) } ?? .null
    }
}
