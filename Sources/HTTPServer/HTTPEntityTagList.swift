/// The value of `If-Match` or `If-None-Match` (RFC 9110 §13.1.1, §13.1.2): `*`, or a list of entity tags.
///
/// The one parser and evaluator of these fields for every server module (the flag API's GET and writes,
/// OFREP's bulk evaluation). Several field lines are one list (RFC 9110 §5.3), but each line is parsed on
/// its own: a malformed line (an unterminated quote, `*` next to a tag, an unquoted tag) is ignored and
/// matches nothing, while the other lines still count. Empty list elements and the spaces around them are
/// skipped (RFC 9110 §5.6.1: a recipient must accept them).
public enum HTTPEntityTagList: Sendable, Equatable {
    /// `*`: any current representation.
    case any
    /// The listed tags, in order.
    case tags([HTTPEntityTag])

    /// Parses one field line; nil when it is malformed. `acceptingBareTags`: see `HTTPEntityTag` (OFREP only).
    public init?(parsing field: String, acceptingBareTags: Bool = false) {
        var tags: [HTTPEntityTag] = []
        let parsed = Self.forEachMember(of: Substring(field), acceptingBareTags: acceptingBareTags) { opaque, weak in
            tags.append(HTTPEntityTag(opaque: String(opaque), weak: weak))
        }
        switch parsed {
        case nil: return nil
        case .any?: self = .any
        case .tags?: self = .tags(tags)
        }
    }

    /// Whether `If-None-Match` fields match `current` (a quoted tag, as sent in `ETag`): `*`, or a listed tag
    /// equal to it by WEAK comparison (§13.1.2). Then a GET answers 304. No field (or only malformed ones): false.
    public static func ifNoneMatch(_ fields: [String], matches current: String, acceptingBareTags: Bool = false) -> Bool {
        guard let current = currentOpaque(current) else { return false }
        for field in fields {
            // The common case, one field holding exactly the current tag, is decided without parsing.
            if field.utf8.count == current.quoted.utf8.count && field == current.quoted { return true }
            var hit = false
            let parsed = forEachMember(of: Substring(field), acceptingBareTags: acceptingBareTags) { opaque, _ in
                if HTTPEntityTag.weakMatch(opaque, current.opaque) { hit = true }
            }
            if parsed == .any || (parsed == .tags && hit) { return true }
        }
        return false
    }

    /// Whether `If-Match` fields match `current` (nil: no current representation): `*` when there is one,
    /// or a listed tag equal to it by STRONG comparison (§13.1.1: a weak tag never matches). Bare tags are
    /// never accepted here.
    public static func ifMatch(_ fields: [String], matches current: String?) -> Bool {
        let current = current.flatMap(currentOpaque)
        for field in fields {
            var hit = false
            let parsed = forEachMember(of: Substring(field), acceptingBareTags: false) { opaque, weak in
                if let current, HTTPEntityTag.strongMatch(opaque, weak: weak, current.opaque, weak: current.weak) { hit = true }
            }
            if (parsed == .any && current != nil) || (parsed == .tags && hit) { return true }
        }
        return false
    }

    /// Whether any field is exactly `*` (`If-None-Match: *` on a write: "only if nothing exists yet").
    public static func isAny(_ fields: [String]) -> Bool {
        fields.contains { forEachMember(of: Substring($0), acceptingBareTags: false) { _, _ in } == .any }
    }

    /// What a field line turned out to be, for the walk below.
    enum Shape: Equatable { case any, tags }

    /// Calls `body` with each tag of one field line; `.any` for `*` (alone), nil when the line is malformed
    /// (then what `body` saw must not count). Walks the line in place: no array, no strings.
    static func forEachMember(of field: Substring, acceptingBareTags: Bool,
                              _ body: (_ opaque: Substring, _ weak: Bool) -> Void) -> Shape? {
        var rest = field
        func skipSpaceAndCommas() {
            while let c = rest.utf8.first, c == 0x20 || c == 0x09 || c == 0x2C { rest = rest.dropFirst() }
        }
        skipSpaceAndCommas()
        if rest.utf8.first == 0x2A {
            rest = rest.dropFirst()
            skipSpaceAndCommas()
            return rest.isEmpty ? .any : nil
        }
        while !rest.isEmpty {
            guard let member = HTTPEntityTag.member(&rest, acceptingBareTags: acceptingBareTags) else { return nil }
            body(member.opaque, member.weak)
            skipSpaceAndCommas()
        }
        return .tags
    }

    /// The current tag's opaque part and weakness, and its quoted text for the fast path.
    private static func currentOpaque(_ current: String) -> (opaque: Substring, weak: Bool, quoted: String)? {
        var rest = HTTPHeaders.trimmed(Substring(current))
        guard let member = HTTPEntityTag.member(&rest, acceptingBareTags: true) else { return nil }
        return (member.opaque, member.weak, current)
    }
}
