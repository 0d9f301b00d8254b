import Testing
@testable import HTTPServer

/// The head's checks: Content-Length (RFC 9110 §8.6) and the first bytes of a request line (RFC 9112 §3).
@Suite struct HTTPRequestParserHeadTests {
    @Test func contentLengthWithLeadingZerosIsItsValue() throws {
        let body = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0000000000000000000000005\r\n\r\nhello"
        let parsed = parseAll(body)
        #expect(parsed.error == nil)
        #expect(parsed.requests.first.map { String(decoding: $0.body, as: UTF8.self) } == "hello")
        #expect(parseAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 000\r\n\r\n").requests.first?.body.isEmpty == true)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0001048577\r\n\r\n")?.0 == 413)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n")?.0 == 413)
    }

    @Test func bytesThatCannotStartARequestAreRefusedBeforeTheHeadEnds() {
        // A TLS ClientHello's record header on the plain port, and other non-tchar first bytes.
        for start: [UInt8] in [[0x16, 0x03, 0x01, 0x02, 0x00], [0x00], [0x80, 0x47], [0x20, 0x47, 0x45, 0x54], [0x47, 0x45, 0x7B]] {
            var parser = HTTPRequestParser(limits: HTTPRequestParser.Limits())
            #expect(throws: HTTPError.self, "\(start)") { _ = try start.withUnsafeBytes { try parser.parse($0) } }
        }
        // A method arriving in pieces is fine.
        for start in ["G", "GET", "GET /", "\r\n", "\r\nGE"] {
            var parser = HTTPRequestParser(limits: HTTPRequestParser.Limits())
            let bytes = Array(start.utf8)
            #expect(throws: Never.self, "\(start)") { _ = try bytes.withUnsafeBytes { try parser.parse($0) } }
        }
    }
}
