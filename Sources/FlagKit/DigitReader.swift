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

    /// Consumes the next byte when it is one of `allowed`.
    mutating func skip(_ allowed: String) -> Bool {
        guard let byte = peek, allowed.utf8.contains(byte) else { return false }
        index += 1
        return true
    }
}
