import Testing
@testable import HTTPServer

/// Which address is the client's: the peer, or what a trusted proxy forwarded.
@Suite struct HTTPTrustedProxiesTests {
    /// 127.0.0.1 and 192.0.2.7 as peers (s_addr in memory, network order, on a little-endian machine).
    static let loopback = HTTPPeerAddress(family: 4, port: 40000, high: 0, low: UInt64(UInt32(0x0100_007F)))
    static let stranger = HTTPPeerAddress(family: 4, port: 40000, high: 0, low: UInt64(UInt32(0x0702_00C0)))

    func request(_ headers: HTTPHeaders) -> HTTPRequest { HTTPRequest(method: .GET, target: "/", headers: headers) }

    @Test func forwardingFieldsAreIgnoredUnlessThePeerIsTrusted() throws {
        let forwarded = request(["X-Forwarded-For": "203.0.113.5", "X-Real-IP": "203.0.113.6"])
        #expect(HTTPTrustedProxies.none.clientAddress(forwarded, peer: Self.loopback) == "127.0.0.1")
        let proxies = try #require(HTTPTrustedProxies(["127.0.0.1"]))
        #expect(proxies.clientAddress(forwarded, peer: Self.stranger) == "192.0.2.7")
        #expect(proxies.clientAddress(forwarded, peer: Self.loopback) == "203.0.113.5")
        #expect(proxies.clientAddress(request(["X-Real-IP": "203.0.113.6"]), peer: Self.loopback) == "203.0.113.6")
        #expect(proxies.clientAddress(request([:]), peer: Self.loopback) == "127.0.0.1")
    }

    @Test func theRightmostUntrustedHopIsTheClient() throws {
        let proxies = try #require(HTTPTrustedProxies(["127.0.0.1", "10.0.0.2"]))
        // The client wrote the first entry; nginx appended the address it saw.
        let spoofed = request(["X-Forwarded-For": "1.2.3.4, 203.0.113.5"])
        #expect(proxies.clientAddress(spoofed, peer: Self.loopback) == "203.0.113.5")
        let chain = request(["X-Forwarded-For": "203.0.113.5, 10.0.0.2"])
        #expect(proxies.clientAddress(chain, peer: Self.loopback) == "203.0.113.5")
        var twoFields = HTTPHeaders()
        twoFields.add(name: "X-Forwarded-For", value: "198.51.100.1")
        twoFields.add(name: "X-Forwarded-For", value: "203.0.113.9")
        #expect(proxies.clientAddress(request(twoFields), peer: Self.loopback) == "203.0.113.9")
        // Junk in the nearest hop: the peer stays the answer.
        #expect(proxies.clientAddress(request(["X-Forwarded-For": "1.2.3.4, not-an-ip"]), peer: Self.loopback) == "127.0.0.1")
        #expect(proxies.clientAddress(request(["X-Forwarded-For": "10.0.0.2"]), peer: Self.loopback) == "10.0.0.2")
    }

    @Test func addressesAreCanonicalAndValidated() throws {
        #expect(HTTPTrustedProxies(["127.0.0.1", "::1"])?.addresses == ["127.0.0.1", "::1"])
        #expect(HTTPTrustedProxies(["0:0:0:0:0:0:0:1"])?.addresses == ["::1"])
        #expect(HTTPTrustedProxies(["localhost"]) == nil)
        #expect(HTTPTrustedProxies(["10.0.0.0/8"]) == nil)
        let proxies = try #require(HTTPTrustedProxies(["127.0.0.1"]))
        #expect(proxies.clientAddress(request(["X-Forwarded-For": "2001:DB8::1"]), peer: Self.loopback) == "2001:db8::1")
    }
}
