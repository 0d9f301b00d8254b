import HTTPServer
import Testing

/// One entity tag (RFC 9110 §8.8.3) and the two comparisons of §8.8.3.2.
@Suite struct HTTPEntityTagTests {
    @Test func parsesExactlyOneTag() throws {
        let strong = try #require(HTTPEntityTag(parsing: #" "12-3fa9" "#))
        #expect(strong == HTTPEntityTag(opaque: "12-3fa9"))
        #expect(strong.description == #""12-3fa9""#)
        let weak = try #require(HTTPEntityTag(parsing: #"W/"12-3fa9""#))
        #expect(weak.isWeak && weak.description == #"W/"12-3fa9""#)
        #expect(HTTPEntityTag(parsing: "12-3fa9") == nil, "unquoted")
        #expect(HTTPEntityTag(parsing: #""a", "b""#) == nil, "a list")
        #expect(HTTPEntityTag(parsing: #""a"#) == nil, "unterminated")
    }

    /// RFC 9110 §8.8.3.2's table.
    @Test func strongAndWeakComparison() {
        let w1 = HTTPEntityTag(opaque: "1", weak: true), w2 = HTTPEntityTag(opaque: "2", weak: true)
        let s1 = HTTPEntityTag(opaque: "1")
        #expect(!w1.matchesStrongly(w1) && w1.matchesWeakly(w1))
        #expect(!w1.matchesStrongly(w2) && !w1.matchesWeakly(w2))
        #expect(!w1.matchesStrongly(s1) && w1.matchesWeakly(s1))
        #expect(s1.matchesStrongly(s1) && s1.matchesWeakly(s1))
    }
}
