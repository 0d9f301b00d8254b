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
        var rest = HTTPHeaders.trimmed(Substring(text))
        guard let member = Self.member(&rest, acceptingBareTags: false), rest.isEmpty else { return nil }
        self.init(opaque: String(member.opaque), weak: member.weak)
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

    /// One entity tag at the start of `rest`, which is advanced past it; nil when none starts there.
    ///
    /// `acceptingBareTags`: a tag without its quotes (`12-3fa9c1e0b2d4a6f8`: etagc characters up to a comma or
    /// whitespace) is read as if quoted. That is not RFC 9110's grammar; it is the one tolerance of this
    /// parser, for `If-None-Match` on OFREP's bulk evaluation only, because some clients echo the ETag's
    /// value into the header as text without its quotes. It is never applied to `If-Match` (a write's
    /// precondition is exactly what the server sent) nor to the document GET, whose clients send it back verbatim.
    static func member(_ rest: inout Substring, acceptingBareTags: Bool) -> (opaque: Substring, weak: Bool)? {
        var scan = rest
        var weak = false
        if scan.hasPrefix("W/") {
            weak = true
            scan = scan.dropFirst(2)
        }
        let utf8 = scan.utf8
        if utf8.first == 0x22 {
            // The quoted form, up to the closing DQUOTE; a comma inside belongs to the tag. What lies between
            // is not checked against etagc: a tag this server never issued simply matches nothing.
            guard let index = utf8.dropFirst().firstIndex(of: 0x22) else { return nil }
            let opaque = scan[scan.index(after: scan.startIndex)..<index]
            rest = scan[utf8.index(after: index)...]
            return (opaque, weak)
        }
        guard acceptingBareTags else { return nil }
        var index = utf8.startIndex
        while index < utf8.endIndex, utf8[index] != 0x2C, isETagCharacter(utf8[index]) { index = utf8.index(after: index) }
        guard index > utf8.startIndex else { return nil }
        rest = scan[index...]
        return (scan[..<index], weak)
    }

    /// etagc: `%x21 / %x23-7E / obs-text` (every visible byte but DQUOTE; no space, no control).
    static func isETagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (byte >= 0x23 && byte != 0x7F)
    }
}
