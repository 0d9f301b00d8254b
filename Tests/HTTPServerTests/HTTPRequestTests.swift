import Testing
@testable import HTTPServer

@Suite struct HTTPRequestTests {
    @Test func targetSplitsIntoPathAndQuery() {
        #expect(HTTPRequest(method: .GET, target: "/a?b=c").path == "/a")
        #expect(HTTPRequest(method: .GET, target: "/a?b=c").query == "b=c")
        #expect(HTTPRequest(method: .GET, target: "/a").query == nil)
        #expect(HTTPRequest(method: .GET, target: "/a?").query == "")
        #expect(HTTPRequest(method: .GET, target: "http://h:1/x/y?z").path == "/x/y")
        #expect(HTTPRequest(method: .GET, target: "http://h:1").path == "/")
    }

    @Test func keepAliveDefaults() {
        #expect(HTTPRequest(method: .GET, target: "/").wantsKeepAlive)
        #expect(!HTTPRequest(method: .GET, target: "/", headers: ["Connection": "close"]).wantsKeepAlive)
        #expect(!HTTPRequest(method: .GET, target: "/", version: .http1_0).wantsKeepAlive)
        #expect(HTTPRequest(method: .GET, target: "/", version: .http1_0, headers: ["Connection": "Keep-Alive"]).wantsKeepAlive)
    }

    @Test func bodyText() {
        #expect(HTTPRequest(method: .PUT, target: "/", body: Array("é".utf8)).bodyText == "é")
    }
}
