import Testing
@testable import HTTPServer

/// The head's field checks: Host (RFC 9112 §3.2), Content-Length (RFC 9110 §8.6), the first bytes.
@Suite struct HTTPRequestParserHeadTests {
    func get(host: String) -> String { "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n" }

    @Test func hostMasksAgreeWithTheRFC3986List() {
        // unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"; sub-delims = "!" / "$" / "&" / "'" / "(" / ")" /
        // "*" / "+" / "," / ";" / "="
        expectMask(HTTPRequestParser.isHostCharacter, matches: "-._~!$&'()*+,;=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    }

    @Test func validHostsAreAccepted() {
        for host in ["h", "127.0.0.1:8080", "flags.example", "flags.example:", "[::1]", "[::1]:8443", "[v1.fe80::a+en1]",
                     "xn--bcher-kva.example", "a%2Db", "", "sub_domain.example:80"] {
            #expect(parseAll(get(host: host)).requests.count == 1, "\(host)")
        }
    }

    @Test func invalidHostsAre400() {
        for host in ["a b", "user@host", "host/path", "host:80:81", "host:8o", "[::1", "[]", "[::1]x", "[::1]:x", "a%zz", "a%2",
                     "hö", "host?", "host#x", "\"q\"", "<h>"] {
            let refused = refusal(get(host: host))
            #expect(refused?.0 == 400 && refused?.1 == "invalid_host", "\(host): \(String(describing: refused))")
        }
    }

    @Test func theSecondRequestOfAConnectionIsCheckedToo() {
        // Every request's Host is checked, not only a connection's first.
        let parsed = parseAll(get(host: "127.0.0.1:8080") + get(host: "127.0.0.1:8080") + get(host: "evil host"))
        #expect(parsed.requests.count == 2)
        #expect(parsed.error?.code == "invalid_host")
    }

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
