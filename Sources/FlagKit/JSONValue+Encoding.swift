/// Canonical and pretty encodings of `JSONValue`.
///
/// The canonical form follows the ideas of RFC 8785 (JSON Canonicalization Scheme): object keys
/// sorted by their UTF-8 bytes, no insignificant whitespace, strings escaped minimally (only `"`,
/// `\` and control characters; everything else stays UTF-8), integers without a decimal point and
/// other numbers in Swift's shortest round-trip form. The same value always gives the same bytes,
/// so a SHA-256 of them identifies content (ETags, "publish nothing when unchanged").
extension JSONValue {
    /// The canonical bytes.
    public var canonicalBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output, indent: nil, level: 0)
        return output
    }

    /// The canonical text.
    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }

    /// Human-friendly JSON: sorted keys, two-space indentation, a trailing newline.
    /// Deterministic too, so files written with it diff cleanly in git.
    public var prettyString: String {
        var output: [UInt8] = []
        write(into: &output, indent: 2, level: 0)
        output.append(UInt8(ascii: "\n"))
        return String(decoding: output, as: UTF8.self)
    }

    private func write(into output: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number(let value): output.append(contentsOf: Self.format(value).utf8)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output.append(contentsOf: "[]".utf8); return }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(into: &output, indent: indent, level: level + 1)
                element.write(into: &output, indent: indent, level: level + 1)
            }
            Self.newline(into: &output, indent: indent, level: level)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { output.append(contentsOf: "{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            // Sorted pairs, not sorted keys and a lookup per key: no second hash of every key.
            let sortedMembers = members.sorted { Self.utf8Order($0.key, $1.key) }
            for (position, member) in sortedMembers.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(into: &output, indent: indent, level: level + 1)
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                member.value.write(into: &output, indent: indent, level: level + 1)
            }
            Self.newline(into: &output, indent: indent, level: level)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Orders strings by their UTF-8 bytes, which is independent of locale and of Swift's
    /// `String` comparison (that one follows Unicode canonical equivalence).
    public static func utf8Order(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func newline(into output: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Shortest round-trip decimal form; integral doubles (outside `Int64`) keep an exponent form.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return "\(value)"
    }

    /// Appends `value` as a JSON string (RFC 8259 §7), escaping only `"`, `\` and control characters:
    /// the one string encoder of the package (OFREP's response writer uses it too).
    public static func appendString(_ value: String, to output: inout [UInt8]) {
        writeString(value, into: &output)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (keys, identifiers, versions, descriptions) need no escape: one bulk copy. The check
        // walks the string's contiguous UTF-8 directly; through `utf8.contains(where:)` it cost about ten
        // times as much and was a third of encoding a snapshot.
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            output.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        let hex = hexDigits
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case 0x08: output.append(contentsOf: "\\b".utf8)
            case 0x0C: output.append(contentsOf: "\\f".utf8)
            case 0x0A: output.append(contentsOf: "\\n".utf8)
            case 0x0D: output.append(contentsOf: "\\r".utf8)
            case 0x09: output.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
