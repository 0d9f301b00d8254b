import Testing
@testable import HTTPServer

@Suite struct HTTPRequestQueryTests {
    @Test func itemsAreDecodedInOrder() {
        let r = HTTPRequest(method: .GET, target: "/x?dryRun=true&msg=hello+world&e=%C3%A9&flag&dryRun=false")
        #expect(r.queryItems.map(\.name) == ["dryRun", "msg", "e", "flag", "dryRun"])
        #expect(r.queryParameter("dryRun") == "true")
        #expect(r.queryParameter("msg") == "hello world")
        #expect(r.queryParameter("e") == "é")
        #expect(r.queryParameter("flag") == "")
        #expect(r.queryParameter("none") == nil)
    }

    @Test func percentDecoding() {
        #expect(HTTPRequest.percentDecode("a%2Fb") == "a/b")
        #expect(HTTPRequest.percentDecode("a+b") == "a+b")
        #expect(HTTPRequest.percentDecode("a+b", plusIsSpace: true) == "a b")
        #expect(HTTPRequest.percentDecode("%zz") == nil)
        #expect(HTTPRequest.percentDecode("%4") == nil)
        #expect(HTTPRequest.percentDecode("%FF") == nil)
    }
}
