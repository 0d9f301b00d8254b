/// Whitespace trimming without Foundation: `trimmingCharacters(in:)` bridges through NSString on Linux,
/// which cost more than the rest of a write's header handling.
extension StringProtocol {
    /// Without leading and trailing optional whitespace as HTTP defines it (RFC 9110 §5.6.3: SP and HTAB).
    var trimmingOptionalWhitespace: String {
        let bytes = Substring(self).utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        guard let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Whether every character is Unicode whitespace or a line break (an empty string is blank too).
    var isBlank: Bool { unicodeScalars.allSatisfy { $0.properties.isWhitespace } }
}
