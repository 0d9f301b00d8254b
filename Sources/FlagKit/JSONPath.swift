/// JSON pointers (RFC 6901) that name where in a document a problem is, e.g.
/// `/flags/checkoutEnabled/rules/1/rollout`.
public enum JSONPath {
    /// The pointer for a list of reference tokens; `~` and `/` inside a token are escaped as
    /// `~0` and `~1` (RFC 6901 section 3).
    public static func pointer<Tokens: Sequence>(_ tokens: Tokens) -> String where Tokens.Element == String {
        var result = ""
        for token in tokens {
            result += "/"
            result += escape(token)
        }
        return result
    }

    /// One reference token, escaped.
    public static func escape(_ token: String) -> String {
        // Byte checks, not `String.contains(String)`: with Foundation imported that resolves to a
        // locale-aware `range(of:)`, and this runs for every reference a document's validation visits.
        guard token.utf8.contains(UInt8(ascii: "~")) || token.utf8.contains(UInt8(ascii: "/")) else { return token }
        var escaped = ""
        escaped.reserveCapacity(token.utf8.count + 4)
        for character in token.unicodeScalars {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// One reference token unescaped (`~1` is `/`, `~0` is `~`, RFC 6901 §4); nil when a `~` is followed by
    /// anything else. Decoding each `~` with the character after it reads `~01` as `~1`, never as `/`.
    public static func unescape(_ token: String) -> String? {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return token }
        var result = ""
        var scalars = token.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "~" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "0": result += "~"
            case "1": result += "/"
            default: return nil
            }
        }
        return result
    }

    /// `base` extended by more tokens.
    public static func appending(_ base: String, _ tokens: String...) -> String {
        base + pointer(tokens)
    }
}
