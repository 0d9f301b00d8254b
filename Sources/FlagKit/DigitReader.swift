/// Reads fixed-width ASCII fields of a date or date-time, byte by byte.
struct DigitReader {
    private let bytes: [UInt8]
    private(set) var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var isAtEnd: Bool { index == bytes.count }

    /// The next byte, not consumed.
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Exactly `count` ASCII digits as a number, consumed; nil (nothing consumed) otherwise.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// Consumes the next byte when it is one of `allowed` (ASCII). A `StaticString`: its bytes are read in place,
    /// where a `String`'s UTF-8 view cost more than the rest of an RFC 3339 parse.
    mutating func skip(_ allowed: StaticString) -> Bool {
        guard let byte = peek, allowed.withUTF8Buffer({ $0.contains(byte) }) else { return false }
        index += 1
        return true
    }
}
