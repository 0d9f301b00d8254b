import Testing
@testable import HTTPServer

/// chunk-size = 1*HEXDIG (RFC 9112 §7.1): what counts toward "too large" is the value, not the spelling.
@Suite struct HTTPRequestParserChunkedTests {
    func chunked(_ size: String, _ data: String) -> String {
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n\(data)\r\n0000\r\n\r\n"
    }

    @Test func leadingZerosAreValid() {
        let parsed = parseAll(chunked("0000000000000005", "hello"))
        #expect(parsed.error == nil)
        #expect(parsed.requests.first.map { String(decoding: $0.body, as: UTF8.self) } == "hello")
        #expect(parseAll(chunked(String(repeating: "0", count: 40) + "3", "abc")).requests.count == 1)
    }

    @Test func sizesBeyondTheLimitAreStill413() {
        #expect(refusal(chunked("100001", "x"))?.0 == 413)
        #expect(refusal(chunked("0000FFFFFFFFFFFFFFFF", "x"))?.0 == 413)
        #expect(refusal(chunked("1000000000000000000000", "x"))?.0 == 413)
    }
}
