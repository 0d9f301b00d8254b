import Testing
@testable import HTTPServer

@Suite struct HTTPResponseTests {
    @Test func jsonPutsContentTypeFirstAndKeepsOtherHeaders() {
        let r = HTTPResponse.json(#"{"a":1}"#, status: .created, headers: ["ETag": "\"3\"", "content-type": "text/plain"])
        #expect(r.status == .created)
        #expect(r.headers.map(\.name) == ["Content-Type", "ETag"])
        #expect(r.headers["Content-Type"] == "application/json")
        #expect(r.body == Array(#"{"a":1}"#.utf8))
    }

    @Test func textAndEmpty() {
        #expect(HTTPResponse.text("hi").headers["content-type"] == "text/plain; charset=utf-8")
        #expect(HTTPResponse.empty(.notModified, headers: ["ETag": "x"]).body.isEmpty)
    }
}
