import CLibPQ
import Glibc

/// One statement's arguments as libpq takes them (https://www.postgresql.org/docs/current/libpq-exec.html,
/// `PQsendQueryParams`): C strings owned here until `deinit`, their byte lengths, formats (text 0; binary 1 for
/// `bytea`) and types (int8, float8, bytea; 0 leaves a text or NULL argument's type to the server, as for a quoted
/// literal: the column decides). libpq copies them into its output buffer when the statement is queued, so they only
/// need to live for that call.
final class PostgresParameters {
    private(set) var values: [UnsafeMutablePointer<CChar>?]
    private(set) var lengths: [Int32]
    private(set) var formats: [Int32]
    private(set) var types: [Oid]

    /// `arguments` bound for `sql` (named in the error when memory runs out).
    init(_ arguments: [DatabaseValue], sql: String) throws {
        let count = arguments.count
        values = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
        lengths = [Int32](repeating: 0, count: count)
        formats = [Int32](repeating: 0, count: count)
        types = [Oid](repeating: 0, count: count)
        for (index, argument) in arguments.enumerated() {
            switch argument {
            case .null:
                break
            case .integer(let number):
                values[index] = strdup(String(number))
                types[index] = 20  // int8
            case .real(let number):
                values[index] = strdup("\(number)")
                types[index] = 701  // float8
            case .text(let string):
                values[index] = strdup(string)
            case .blob(let bytes):
                guard let memory = malloc(max(bytes.count, 1)) else {
                    throw DatabaseError(sqlState: "53200", message: "out of memory binding \(bytes.count) bytes", sql: sql)
                }
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { memcpy(memory, base, raw.count) }
                }
                values[index] = memory.assumingMemoryBound(to: CChar.self)
                lengths[index] = Int32(bytes.count)
                formats[index] = 1  // binary
                types[index] = 17  // bytea
            }
        }
    }

    deinit { for value in values { free(value) } }

    /// The number of arguments.
    var count: Int32 { Int32(values.count) }

    /// The types as a short text, part of a prepared statement's key: a statement is prepared with its arguments'
    /// types, so the same SQL bound with other types (a NULL where an integer was) is a statement of its own, exactly
    /// as `PQexecParams` would have typed it.
    var typeSignature: String {
        String(decoding: types.map { type -> UInt8 in
            switch type {
            case 20: UInt8(ascii: "i")
            case 701: UInt8(ascii: "r")
            case 17: UInt8(ascii: "b")
            default: UInt8(ascii: "_")
            }
        }, as: UTF8.self)
    }

    /// Calls `body` with the C arrays libpq's calls take.
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        let constants = values.map { UnsafePointer($0) }
        return constants.withUnsafeBufferPointer { valuePointers in
            lengths.withUnsafeBufferPointer { lengthPointers in
                formats.withUnsafeBufferPointer { formatPointers in
                    body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                }
            }
        }
    }
}
