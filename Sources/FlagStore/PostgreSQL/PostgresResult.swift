import CLibPQ
import Glibc

/// The result of one executed PostgreSQL statement (`PGresult`, text format,
/// https://www.postgresql.org/docs/current/libpq-exec.html), read with the same readers as a SQLite row through
/// `Row.postgres`: integers and doubles parsed from their text, `bytea` from its hex form. Owns the result.
package final class PostgresResult {
    /// The `PGresult`, cleared in `deinit`.
    let handle: OpaquePointer
    /// The SQL text, kept for errors.
    package let sql: String
    /// The row the readers read.
    var row: Int32 = 0
    /// Result column names to their indexes, built at the first access by name (`Row+Columns`).
    private var columnIndexes: [String: Int32]?

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit { PQclear(handle) }

    /// The number of rows the statement returned.
    var rowCount: Int32 { PQntuples(handle) }

    /// The number of rows an INSERT, UPDATE or DELETE changed (`PQcmdTuples`; 0 for other statements).
    var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The index of the result column called `name` (`PQfname`), nil when there is none.
    func columnIndex(_ name: String) -> Int32? {
        if let columnIndexes { return columnIndexes[name] }
        var indexes: [String: Int32] = [:]
        for index in 0..<PQnfields(handle) {
            if let name = PQfname(handle, index) { indexes[String(cString: name)] = index }
        }
        columnIndexes = indexes
        return indexes[name]
    }

    /// Whether column `index` of row `row` is NULL.
    func isNull(_ index: Int32) -> Bool {
        PQgetisnull(handle, row, index) == 1
    }

    /// Column `index` parsed as an integer (0 for NULL).
    func int64(_ index: Int32) -> Int64 {
        guard let value = PQgetvalue(handle, row, index), value.pointee != 0 else { return 0 }
        // A boolean expression's column reads as 1/0, as SQLite returns it.
        switch value.pointee {
        case CChar(UInt8(ascii: "t")): return 1
        case CChar(UInt8(ascii: "f")): return 0
        default: return strtoll(value, nil, 10)
        }
    }

    /// Column `index` parsed as a double.
    func double(_ index: Int32) -> Double {
        guard let value = PQgetvalue(handle, row, index) else { return 0 }
        return strtod(value, nil)
    }

    /// Column `index` as text ("" for NULL).
    func text(_ index: Int32) -> String {
        guard let value = PQgetvalue(handle, row, index) else { return "" }
        let count = Int(PQgetlength(handle, row, index))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// A `bytea` column: text format is `\x` followed by two hex digits per byte.
    func blob(_ index: Int32) -> [UInt8] {
        guard let value = PQgetvalue(handle, row, index) else { return [] }
        let count = Int(PQgetlength(handle, row, index))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) { text in
            guard count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else {
                return Array(UnsafeBufferPointer(start: text, count: count))
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity((count - 2) / 2)
            var offset = 2
            while offset + 1 < count {
                bytes.append(Self.hexValue(text[offset]) << 4 | Self.hexValue(text[offset + 1]))
                offset += 2
            }
            return bytes
        }
    }

    private static func hexValue(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}
