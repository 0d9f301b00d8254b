import Testing
@testable import HTTPServer

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrderAndDuplicates() {
        var h: HTTPHeaders = ["Content-Type": "application/json", "Set-Cookie": "a=1"]
        h.add(name: "set-cookie", value: "b=2")
        #expect(h["content-type"] == "application/json")
        #expect(h["SET-COOKIE"] == "a=1")
        #expect(h.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(h.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie"])
        #expect(h["Missing"] == nil)
        #expect(!h.contains("Content-Typ"))
    }

    @Test func replaceAndRemove() {
        var h: HTTPHeaders = ["A": "1", "a": "2", "B": "3"]
        h.replaceOrAdd(name: "A", value: "9")
        #expect(h.map(\.value) == ["3", "9"])
        h.remove("b")
        #expect(h.count == 1)
    }

    @Test func tokensInCommaSeparatedFields() {
        let h: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "connection": " CLOSE "]
        #expect(h.hasToken("close", in: "Connection"))
        #expect(h.hasToken("upgrade", in: "connection"))
        #expect(!h.hasToken("keep", in: "Connection"))
        // Empty elements, tabs, a token at either end, and a longer token that merely starts like it.
        let edge: HTTPHeaders = ["Connection": ",\tclose-ish ,, te\t,"]
        #expect(edge.hasToken("te", in: "Connection"))
        #expect(edge.hasToken("close-ish", in: "Connection"))
        #expect(edge.hasToken("", in: "Connection"))
        #expect(!edge.hasToken("close", in: "Connection"))
        let closed: HTTPHeaders = ["Connection": "closed"]
        #expect(!closed.hasToken("close", in: "Connection"))
        #expect(!HTTPHeaders().hasToken("close", in: "Connection"))
    }

    @Test func caseFoldingIsASCIIOnly() {
        #expect(HTTPHeaders.equalsIgnoringCase("ETag", "etag"))
        #expect(!HTTPHeaders.equalsIgnoringCase("a", "b"))
        // '@' (0x40) and '`' (0x60) differ only in bit 0x20 but are not letters.
        #expect(!HTTPHeaders.equalsIgnoringCase("@", "`"))
        #expect(!HTTPHeaders.equalsIgnoringCase("ab", "abc"))
    }
}
