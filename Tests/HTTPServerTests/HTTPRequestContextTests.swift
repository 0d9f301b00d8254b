import Testing
@testable import HTTPServer

@Suite struct HTTPRequestContextTests {
    @Test func peerAddressFormatting() {
        // 127.0.0.1 as s_addr in memory (network order) on a little-endian machine.
        let v4 = HTTPPeerAddress(family: 4, port: 8080, high: 0, low: UInt64(UInt32(0x0100_007F)))
        #expect(v4.description == "127.0.0.1:8080")
        let v6 = HTTPPeerAddress(family: 6, port: 443, high: 0, low: 1)
        #expect(v6.description == "[::1]:443")
        #expect(HTTPPeerAddress.unspecified.host == "unknown")
    }

    @Test func pathParameters() {
        let p = HTTPPathParameters([("env", "prod"), ("key", "k")])
        #expect(p["env"] == "prod")
        #expect(p["nope"] == nil)
        #expect(p == HTTPPathParameters([("env", "prod"), ("key", "k")]))
    }
}
