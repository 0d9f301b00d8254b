import Testing
@testable import HTTPServer

/// Host must be `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2-3.2.3).
@Suite struct HTTPRequestParserHostTests {
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

    @Test func theCacheOnlyAnswersForTheSameBytes() {
        var cache = HTTPRequestParser.HostCache()
        func valid(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { cache.isValid($0) } }
        // Same length as the cached value, one byte different (first, middle, last): checked, refused.
        for (good, bad) in [("h:1", "h 1"), ("127.0.0.1:8080", "127.0.0 1:8080"), ("127.0.0.1:8080", "127.0.0.1:808x"),
                            ("127.0.0.1:8080", "@27.0.0.1:8080"), ("a.example:443", "a.example:44/"),
                            ("0123456789abcdef", "0123456789abcde@"), ("0123456789abcdefg", "0123456789abcdef@")] {
            #expect(valid(good), "\(good)")
            #expect(valid(good), "\(good) again")
            #expect(!valid(bad), "\(bad) after \(good)")
        }
    }
}

