/// An entity tag (RFC 9110 §8.8.3): `"12-3fa9c1e0b2d4a6f8"`, or weak, `W/"12-3fa9c1e0b2d4a6f8"`.
///
/// ```
/// entity-tag = [ weak ] opaque-tag     weak = %s"W/"     opaque-tag = DQUOTE *etagc DQUOTE
/// etagc      = %x21 / %x23-7E / obs-text
/// ```
public struct HTTPEntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The characters between the quotes.
    public var opaque: String
    /// Whether it is weak (`W/`): it identifies a representation only up to semantic equivalence.
    public var isWeak: Bool

    /// A tag with `opaque` between its quotes.
    public init(opaque: String, weak: Bool = false) {
        self.opaque = opaque
        isWeak = weak
    }

    /// Parses exactly one entity tag (surrounding spaces and tabs allowed); nil when `text` is anything else.
    public init?(parsing text: String) {
        guard let (opaque, weak) = HTTPHeaders.withBytes(of: text, { bytes -> (String, Bool)? in
            var s = 0, e = bytes.count
            while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
            while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
            var i = s
            guard let member = Self.member(UnsafeRawBufferPointer(rebasing: bytes[0..<e]), at: &i, acceptingBareTags: false),
                  i == e else { return nil }
            return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[member.opaque]), as: UTF8.self), member.weak)
        }) else { return nil }
        self.init(opaque: opaque, weak: weak)
    }

    /// The tag as it is sent: quoted, with `W/` when weak.
    public var description: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }

    /// Strong comparison (RFC 9110 §8.8.3.2): neither is weak and the opaque tags are equal. `If-Match` compares
    /// so (§13.1.1): a write's precondition must name exactly the bytes the server has.
    public func matchesStrongly(_ other: HTTPEntityTag) -> Bool {
        Self.strongMatch(Substring(opaque), weak: isWeak, Substring(other.opaque), weak: other.isWeak)
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags are equal, `W/` on either side ignored.
    /// `If-None-Match` compares so (§13.1.2): a cache may revalidate what it holds with a weak tag.
    public func matchesWeakly(_ other: HTTPEntityTag) -> Bool {
        Self.weakMatch(Substring(opaque), Substring(other.opaque))
    }

    /// The two comparisons on the opaque parts as parsed in place (`HTTPEntityTagList` walks a field
    /// without building tags): strong needs both tags strong, weak ignores `W/`.
    static func strongMatch(_ a: Substring, weak aIsWeak: Bool, _ b: Substring, weak bIsWeak: Bool) -> Bool {
        !aIsWeak && !bIsWeak && a == b
    }

    static func weakMatch(_ a: Substring, _ b: Substring) -> Bool { a == b }

    /// One entity tag starting at `i` in `field`, with `i` advanced past it: the range of its opaque part and
    /// whether it is weak; nil when none starts there.
    ///
    /// `acceptingBareTags`: a tag without its quotes (`12-3fa9c1e0b2d4a6f8`: etagc characters up to a comma or
    /// whitespace) is read as if quoted. That is not RFC 9110's grammar; it is the one tolerance of this
    /// parser, for `If-None-Match` on OFREP's bulk evaluation only, because some clients echo the ETag's
    /// value into the header as text without its quotes. It is never applied to `If-Match` (a write's
    /// precondition is exactly what the server sent) nor to the document GET, whose clients send it back verbatim.
    static func member(_ field: UnsafeRawBufferPointer, at i: inout Int, acceptingBareTags: Bool) -> (opaque: Range<Int>, weak: Bool)? {
        var scan = i
        var weak = false
        if scan + 1 < field.count && field[scan] == 0x57 && field[scan + 1] == 0x2F {  // W/
            weak = true
            scan += 2
        }
        if scan < field.count && field[scan] == 0x22 {
            // The quoted form, up to the closing DQUOTE; a comma inside belongs to the tag. What lies between
            // is not checked against etagc: a tag this server never issued simply matches nothing.
            guard let close = field.index(of: 0x22, from: scan + 1) else { return nil }
            i = close + 1
            return (scan + 1..<close, weak)
        }
        guard acceptingBareTags else { return nil }
        var end = scan
        while end < field.count, field[end] != 0x2C, isETagCharacter(field[end]) { end += 1 }
        guard end > scan else { return nil }
        i = end
        return (scan..<end, weak)
    }

    /// etagc: `%x21 / %x23-7E / obs-text` (every visible byte but DQUOTE; no space, no control).
    static func isETagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (byte >= 0x23 && byte != 0x7F)
    }
}
