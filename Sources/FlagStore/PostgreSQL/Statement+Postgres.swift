import CLibPQ
import Glibc

/// Reading a PostgreSQL result (text format, https://www.postgresql.org/docs/current/libpq-exec.html) with the
/// same readers as a SQLite row: integers and doubles parsed from their text, `bytea` from its hex form.
extension Statement {
    /// The number of rows the statement returned (PostgreSQL).
    var postgresRowCount: Int32 { PQntuples(handle) }

    /// The number of rows an INSERT, UPDATE or DELETE changed (`PQcmdTuples`; 0 for other statements).
    var postgresAffectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    func clearPostgresResult() { PQclear(handle) }

    /// Result column names to indexes (`PQfname`), for `Statement+Columns`.
    func postgresColumnIndexes() -> [String: Int32] {
        var indexes: [String: Int32] = [:]
        for index in 0..<PQnfields(handle) {
            if let name = PQfname(handle, index) { indexes[String(cString: name)] = index }
        }
        return indexes
    }

    func postgresIsNull(_ index: Int32) -> Bool {
        PQgetisnull(handle, row, index) == 1
    }

    func postgresInt64(_ index: Int32) -> Int64 {
        guard let value = PQgetvalue(handle, row, index), value.pointee != 0 else { return 0 }
        // A boolean expression's column reads as 1/0, as SQLite returns it.
        switch value.pointee {
        case CChar(UInt8(ascii: "t")): return 1
        case CChar(UInt8(ascii: "f")): return 0
        default: return strtoll(value, nil, 10)
        }
    }

    func postgresDouble(_ index: Int32) -> Double {
        guard let value = PQgetvalue(handle, row, index) else { return 0 }
        return strtod(value, nil)
    }

    func postgresText(_ index: Int32) -> String {
        guard let value = PQgetvalue(handle, row, index) else { return "" }
        let count = Int(PQgetlength(handle, row, index))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// A `bytea` column: text format is `\x` followed by two hex digits per byte.
    func postgresBlob(_ index: Int32) -> [UInt8] {
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
