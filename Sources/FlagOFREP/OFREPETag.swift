import HTTPServer

/// `If-None-Match` evaluation (RFC 9110 §13.1.2).
enum OFREPETag {
    /// Whether the field value matches `current`: `*` matches any current representation; otherwise
    /// a comma-separated list of entity tags compared weakly (§8.8.3.2: a `W/` prefix is ignored,
    /// the opaque quoted strings must be equal). A bare unquoted tag is accepted too, because some
    /// clients echo the value without its quotes.
    static func matches(_ field: String, _ current: String) -> Bool {
        let currentOpaque = opaque(Substring(current))
        for member in field.split(separator: ",") {
            let tag = HTTPHeaders.trimmed(member)
            if tag == "*" { return true }
            if !tag.isEmpty && opaque(tag) == currentOpaque { return true }
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        var tag = tag
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2 && tag.hasPrefix("\"") && tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return tag
    }
}
