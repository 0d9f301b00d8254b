import RawHTTPClient
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

    @Test func anEncodedHeadIsExactlyWhatWouldBeEncodedAndIsDroppedByAnyChange() {
        let plain = HTTPResponse.json("{}", headers: ["ETag": "\"7\"", "Content-Length": "999", "Cache-Control": "no-cache"])
        let encoded = plain.encodingHead()
        #expect(encoded.encodedHead == HTTPResponse.encodeHead(status: plain.status, headers: plain.headers))
        #expect(String(decoding: encoded.encodedHead ?? [], as: UTF8.self)
            == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"7\"\r\nCache-Control: no-cache\r\n")
        var changedHeaders = encoded
        changedHeaders.headers.add(name: "X-Later", value: "1")
        #expect(changedHeaders.encodedHead == nil)
        var changedStatus = encoded
        changedStatus.status = .created
        #expect(changedStatus.encodedHead == nil)
        var changedBody = encoded
        changedBody.body = [0x31]
        #expect(changedBody.encodedHead != nil)  // the body is not part of the head
        #expect(changedBody.encodedLengthLine == nil, "the Content-Length line follows the body")
        #expect(String(decoding: encoded.encodedLengthLine ?? [], as: UTF8.self) == "Content-Length: 2\r\n")
        #expect(HTTPResponse.empty(.notModified).encodingHead().encodedLengthLine == nil, "no Content-Length on a 304")
    }

    /// A response is one shared storage until a copy changes: the snapshot's prepared response never changes
    /// under the requests that copied it.
    @Test func aChangedCopyLeavesTheOriginalAlone() {
        let original = HTTPResponse.json("{}", headers: ["ETag": "\"1\""]).encodingHead()
        var copy = original
        copy.body.append(0x0A)
        copy.headers.add(name: "X-More", value: "1")
        copy.status = .created
        copy.closeConnection = true
        #expect(original.body == Array("{}".utf8) && original.headers.count == 2 && original.status == .ok)
        #expect(!original.closeConnection && original.encodedHead != nil && original.encodedLengthLine != nil)
        #expect(copy.body == Array("{}\n".utf8) && copy.headers["x-more"] == "1" && copy.status == .created)
        #expect(copy.closeConnection && copy.encodedHead == nil && copy.encodedLengthLine == nil)
    }

    @Test func anEncodedHeadGoesOutByteForByteLikeAnUnencodedOne() async throws {
        let response = HTTPResponse.json("{\"a\":1}", headers: ["ETag": "\"7\"", "Cache-Control": "public, max-age=5"])
        let encoded = response.encodingHead()
        var changing = encoded
        changing.headers.add(name: "X-Changed", value: "yes")
        let changed = changing
        try await withServer(routes: { b in
            b.add(.GET, "/plain") { _, _ in response }
            b.add(.GET, "/encoded") { _, _ in encoded }
            b.add(.GET, "/changed") { _, _ in changed }
        }) { _, port in
            let c = try RawClient(port: port)
            var answers: [RawClient.Response] = []
            for path in ["/plain", "/encoded", "/changed"] {
                try c.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n")
                answers.append(try #require(try await offPool { try c.readResponse() }))
            }
            let withoutDate = answers.map { $0.headers.filter { $0.0 != "Date" }.map { "\($0.0): \($0.1)" } }
            #expect(withoutDate[0] == withoutDate[1])
            #expect(withoutDate[1] == ["Content-Type: application/json", "ETag: \"7\"", "Cache-Control: public, max-age=5", "Content-Length: 7"])
            #expect(answers[1].text == "{\"a\":1}")
            #expect(answers[2].header("X-Changed") == "yes")
        }
    }
}
