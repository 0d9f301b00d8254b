import Glibc

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
        guard !tags.isEmpty else { return false }
        return fields.contains { field in
            HTTPHeaders.withBytes(of: field) { tags.matchesIfNoneMatch(field: $0, acceptingBareTags: acceptingBareTags) }
        }
    }

    /// Whether `If-Match` fields match `current` (nil: no current representation): `*` when there is one,
    /// or a listed tag equal to it by STRONG comparison (§13.1.1: a weak tag never matches). Bare tags are
    /// never accepted here.
    public static func ifMatch(_ fields: [String], matches current: String?) -> Bool {
        let current = current.map { HTTPEntityTagSet([$0]) }.flatMap { $0.isEmpty ? nil : $0 }
        for field in fields {
            var hit = false
            let parsed = HTTPHeaders.withBytes(of: field) { bytes in
                forEachMember(of: bytes, acceptingBareTags: false) { opaque, weak in
                    if let current, !weak, current.strongly(contains: opaque) { hit = true }
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
///
/// The tags' bytes are one array and each tag a pair of offsets, so that reading them costs no retain.
public struct HTTPEntityTagSet: Sendable {
    /// Every tag as sent in `ETag` (quoted, `W/` if weak), one after the other.
    let bytes: [UInt8]
    /// Per tag: where its quoted form and its opaque part lie in `bytes`, and whether it is weak.
    let tags: [(quoted: Range<Int>, opaque: Range<Int>, weak: Bool)]

    /// The tags as sent in `ETag`; a text that is no entity tag is left out (and matches nothing).
    public init(_ texts: [String]) {
        var bytes: [UInt8] = []
        var tags: [(quoted: Range<Int>, opaque: Range<Int>, weak: Bool)] = []
        for text in texts {
            let quoted = Array(text.utf8)
            let member = quoted.withUnsafeBytes { all -> (opaque: Range<Int>, weak: Bool)? in
                // Surrounding whitespace is not part of the tag.
                var s = 0, e = all.count
                while s < e, all[s] == 0x20 || all[s] == 0x09 { s += 1 }
                while e > s, all[e - 1] == 0x20 || all[e - 1] == 0x09 { e -= 1 }
                var i = s
                return HTTPEntityTag.member(UnsafeRawBufferPointer(rebasing: all[0..<e]), at: &i, acceptingBareTags: true)
            }
            guard let member else { continue }
            let base = bytes.count
            bytes.append(contentsOf: quoted)
            tags.append((base..<base + quoted.count, base + member.opaque.lowerBound..<base + member.opaque.upperBound, member.weak))
        }
        self.bytes = bytes
        self.tags = tags
    }

    /// Whether the request's `If-None-Match` fields match one of the tags, or are `*` (RFC 9110 §13.1.2): a GET
    /// answers 304 then. A malformed field line matches nothing; the other lines still count.
    public func matchesIfNoneMatch(_ headers: HTTPHeaders) -> Bool {
        headers.containsValue(named: .ifNoneMatch) { matchesIfNoneMatch(field: $0, acceptingBareTags: false) }
    }

    /// `matchesIfNoneMatch(_:)`, or nil, undecided, at a field line longer than `limit` bytes before any line matched:
    /// a caller holding a lock other requests need matches such a list after letting it go (`matchesIfNoneMatch(_:)`).
    public func matchesIfNoneMatch(_ headers: HTTPHeaders, fieldLinesUpTo limit: Int) -> Bool? {
        var tooLong = false
        let matched = headers.containsValue(named: .ifNoneMatch) { field in
            if field.count > limit {
                tooLong = true
                return true
            }
            return matchesIfNoneMatch(field: field, acceptingBareTags: false)
        }
        return tooLong ? nil : matched
    }

    /// Whether one of the tags' `part` (quoted form or opaque part) is exactly `candidate`.
    @inline(__always)
    private func contains(_ candidate: UnsafeRawBufferPointer, quoted: Bool) -> Bool {
        guard let wanted = candidate.baseAddress else {
            return tags.contains { (quoted ? $0.quoted : $0.opaque).isEmpty }
        }
        return bytes.withUnsafeBytes { all in
            guard let base = all.baseAddress else { return false }
            return tags.withUnsafeBufferPointer { tags in
                for tag in tags {
                    let range = quoted ? tag.quoted : tag.opaque
                    if range.count == candidate.count && memcmp(base + range.lowerBound, wanted, range.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// One `If-None-Match` field line.
    func matchesIfNoneMatch(field: UnsafeRawBufferPointer, acceptingBareTags: Bool) -> Bool {
        if contains(field, quoted: true) { return true }
        var hit = false
        let parsed = HTTPEntityTagList.forEachMember(of: field, acceptingBareTags: acceptingBareTags) { opaque, _ in
            if !hit { hit = contains(opaque, quoted: false) }
        }
        return parsed == .any || (parsed == .tags && hit)
    }

    /// Whether a strong tag's opaque part is `opaque` (If-Match's strong comparison, §8.8.3.2).
    func strongly(contains opaque: UnsafeRawBufferPointer) -> Bool {
        tags.contains { tag in
            !tag.weak && tag.opaque.count == opaque.count
                && bytes[tag.opaque].withUnsafeBytes { $0.elementsEqual(opaque) }
        }
    }

    /// Whether no tag was given (only texts that are no tags).
    var isEmpty: Bool { tags.isEmpty }
}
