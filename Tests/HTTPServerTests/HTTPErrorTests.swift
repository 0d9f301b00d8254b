import Testing
@testable import HTTPServer

@Suite struct HTTPErrorTests {
    @Test func rendersJSONWithEscapes() {
        let e = HTTPError(.unprocessableContent, code: "invalid", message: "bad \"x\"\n\\ \u{01}")
        let r = e.response
        #expect(r.status.code == 422)
        #expect(String(decoding: r.body, as: UTF8.self) == #"{"error":{"code":"invalid","message":"bad \"x\"\n\\ \u0001"}}"# + "\n")
        #expect(!r.closeConnection)
    }

    @Test func methodNotAllowedListsAllow() {
        let r = HTTPError.methodNotAllowed(.DELETE, allowed: [.GET, .HEAD]).response
        #expect(r.headers["Allow"] == "GET, HEAD")
    }

    @Test func systemErrorsKeepErrno() {
        let e = HTTPError.system("bind", errno: 98)
        #expect(e.errno == 98)
        #expect(e.systemCall == "bind")
        #expect(e.description.contains("errno 98"))
    }
}
