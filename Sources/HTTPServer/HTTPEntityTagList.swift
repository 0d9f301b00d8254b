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
        let parsed = HTTPHeaders.withBytes(of: field) { bytes in
            Self.forEachMember(of: bytes, acceptingBareTags: acceptingBareTags) { opaque, weak in
                tags.append(HTTPEntityTag(opaque: String(decoding: opaque, as: UTF8.self), weak: weak))
            }
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
        let tags = HTTPEntityTagSet([current])
        guard !tags.tags.isEmpty else { return false }
        return fields.contains { field in
            HTTPHeaders.withBytes(of: field) { tags.matchesIfNoneMatch(field: $0, acceptingBareTags: acceptingBareTags) }
        }
    }

    /// Whether `If-Match` fields match `current` (nil: no current representation): `*` when there is one,
    /// or a listed tag equal to it by STRONG comparison (§13.1.1: a weak tag never matches). Bare tags are
    /// never accepted here.
    public static func ifMatch(_ fields: [String], matches current: String?) -> Bool {
        let current = current.flatMap { HTTPEntityTagSet.Tag($0) }
        for field in fields {
            var hit = false
            let parsed = HTTPHeaders.withBytes(of: field) { bytes in
                forEachMember(of: bytes, acceptingBareTags: false) { opaque, weak in
                    if let current, !weak, !current.weak, current.opaque.elementsEqual(opaque) { hit = true }
                }
            }
            if (parsed == .any && current != nil) || (parsed == .tags && hit) { return true }
        }
        return false
    }

    /// Whether any field is exactly `*` (`If-None-Match: *` on a write: "only if nothing exists yet").
    public static func isAny(_ fields: [String]) -> Bool {
        fields.contains { field in
            HTTPHeaders.withBytes(of: field) { forEachMember(of: $0, acceptingBareTags: false) { _, _ in } } == .any
        }
    }

    /// What a field line turned out to be, for the walk below.
    enum Shape: Equatable { case any, tags }

    /// Calls `body` with each tag of one field line (its opaque part and whether it is weak); `.any` for `*`
    /// (alone), nil when the line is malformed (then what `body` saw must not count). Walks the bytes in place:
    /// no array, no strings. Empty list elements and the spaces around elements are skipped (§5.6.1).
    static func forEachMember(of field: UnsafeRawBufferPointer, acceptingBareTags: Bool,
                              _ body: (_ opaque: UnsafeRawBufferPointer, _ weak: Bool) -> Void) -> Shape? {
        var i = 0
        let n = field.count
        @inline(__always) func skipSpaceAndCommas() {
            while i < n, field[i] == 0x20 || field[i] == 0x09 || field[i] == 0x2C { i += 1 }
        }
        skipSpaceAndCommas()
        if i < n && field[i] == 0x2A {
            i += 1
            skipSpaceAndCommas()
            return i == n ? .any : nil
        }
        while i < n {
            guard let member = HTTPEntityTag.member(field, at: &i, acceptingBareTags: acceptingBareTags) else { return nil }
            body(UnsafeRawBufferPointer(rebasing: field[member.opaque]), member.weak)
            skipSpaceAndCommas()
        }
        return .tags
    }
}

/// The current entity tags of a resource, prepared once for `If-None-Match` (a document snapshot's identity and
/// gzip tags: either one revalidates either representation). Reads the request's fields as bytes where they
/// arrived: the common field, exactly one of the tags, is one comparison of bytes; anything else is walked by
/// the same parser as `HTTPEntityTagList`, with weak comparison (§13.1.2) and `*`.
public struct HTTPEntityTagSet: Sendable {
    /// One current tag: as sent in `ETag` (quoted, `W/` if weak) and its opaque part.
    struct Tag: Sendable {
        let quoted: [UInt8]
        let opaque: [UInt8]
        let weak: Bool

        /// `text` as the server sends it in `ETag` (surrounding whitespace ignored); nil if it is no tag.
        init?(_ text: String) {
            let quoted = Array(text.utf8)
            guard let parsed = quoted.withUnsafeBytes({ bytes -> (opaque: [UInt8], weak: Bool)? in
                var s = 0, e = bytes.count
                while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
                while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
                let trimmed = UnsafeRawBufferPointer(rebasing: bytes[s..<e])
                var i = 0
                guard let member = HTTPEntityTag.member(trimmed, at: &i, acceptingBareTags: true) else { return nil }
                return (Array(UnsafeRawBufferPointer(rebasing: trimmed[member.opaque])), member.weak)
            }) else { return nil }
            self.quoted = quoted
            opaque = parsed.opaque
            weak = parsed.weak
        }
    }

    let tags: [Tag]

    /// The tags as sent in `ETag`; a text that is no entity tag is left out (and matches nothing).
    public init(_ tags: [String]) { self.tags = tags.compactMap(Tag.init) }

    /// Whether the request's `If-None-Match` fields match one of the tags, or are `*` (RFC 9110 §13.1.2): a GET
    /// answers 304 then. A malformed field line matches nothing; the other lines still count.
    public func matchesIfNoneMatch(_ headers: HTTPHeaders) -> Bool {
        headers.containsValue(named: .ifNoneMatch) { matchesIfNoneMatch(field: $0, acceptingBareTags: false) }
    }

    /// One `If-None-Match` field line.
    func matchesIfNoneMatch(field: UnsafeRawBufferPointer, acceptingBareTags: Bool) -> Bool {
        for tag in tags where tag.quoted.count == field.count {
            if tag.quoted.withUnsafeBytes({ $0.elementsEqual(field) }) { return true }
        }
        var hit = false
        let parsed = HTTPEntityTagList.forEachMember(of: field, acceptingBareTags: acceptingBareTags) { opaque, _ in
            if !hit { hit = tags.contains { $0.opaque.count == opaque.count && $0.opaque.elementsEqual(opaque) } }
        }
        return parsed == .any || (parsed == .tags && hit)
    }
}
