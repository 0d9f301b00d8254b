import Testing
@testable import HTTPServer

/// Numeric addresses: strict text in, canonical text out, and the IPv4 address an IPv6 form carries.
@Suite struct IPAddressTests {
    @Test func numericTextIsReadStrictlyAndWrittenCanonically() throws {
        #expect(IPAddress("127.0.0.1")?.bytes == [127, 0, 0, 1])
        #expect(IPAddress("2001:DB8:0:0::1")?.description == "2001:db8::1")
        #expect(IPAddress("::FFFF:127.0.0.1")?.description == "::ffff:127.0.0.1")
        // inet_aton's lenient forms are names for the resolver, not addresses of this type.
        for lenient in ["127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "[::1]", "fe80::1%eth0", "", " 127.0.0.1"] {
            #expect(IPAddress(lenient) == nil, "\(lenient)")
        }
        #expect(IPAddress(bytes: [1, 2, 3]) == nil && IPAddress(bytes: [1, 2, 3, 4])?.isIPv4 == true)
        #expect(IPAddress("::1")?.uriHost == "[::1]" && IPAddress("10.0.0.1")?.uriHost == "10.0.0.1")
    }

    @Test func ipv6FormsThatCarryAnIPv4AddressGiveIt() throws {
        let carried: [(String, String)] = [
            ("::ffff:127.0.0.1", "127.0.0.1"),   // IPv4-mapped
            ("::127.0.0.1", "127.0.0.1"),        // IPv4-compatible
            ("::10.1.2.3", "10.1.2.3"),
            ("64:ff9b::a9fe:a9fe", "169.254.169.254"),  // NAT64 well-known prefix
            ("2002:7f00:1::", "127.0.0.1"),      // 6to4
            ("::ffff:8.8.8.8", "8.8.8.8"),
            ("::ffff:0:7f00:1", "127.0.0.1"),    // IPv4-translated (SIIT)
        ]
        for (v6, v4) in carried {
            #expect(try #require(IPAddress(v6)).embeddedIPv4?.description == v4, "\(v6)")
        }
        for plain in ["::", "::1", "2001:db8::1", "fe80::1", "64:ff9b:1::1", "::1:ffff:0:7f00:1", "127.0.0.1"] {
            #expect(try #require(IPAddress(plain)).embeddedIPv4 == nil, "\(plain)")
        }
    }
}
