import Testing
@testable import HTTPServer

/// The blocks that are not the public internet, at their edges, in both families and in the IPv6 forms of IPv4.
@Suite struct IPAddressSpecialUseTests {
    /// The block an address is found in, or nil for a public one.
    static func block(_ text: String) throws -> String? {
        try #require(IPAddress(text), "\(text)").specialUse?.network.description
    }

    @Test func everyTableEntryIsTheBlockItsSourceSpells() {
        let written = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
                       "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4",
                       "255.255.255.255/32", "240.0.0.0/4"]
        #expect(IPAddress.specialIPv4.map(\.network.description) == written)
        #expect(IPAddress.specialIPv6.map(\.network.description) == ["::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001::/23",
                                                                     "2001:db8::/32", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
                                                                     "fec0::/10", "ff00::/8"])
    }

    @Test func ipv4BlocksAreFoundAtTheirEdgesAndTheirNeighboursArePublic() throws {
        let cases: [(String, String?)] = [
            ("0.0.0.0", "0.0.0.0/8"), ("0.255.255.255", "0.0.0.0/8"), ("1.0.0.0", nil),
            ("9.255.255.255", nil), ("10.0.0.0", "10.0.0.0/8"), ("10.255.255.255", "10.0.0.0/8"), ("11.0.0.0", nil),
            ("100.63.255.255", nil), ("100.64.0.0", "100.64.0.0/10"), ("100.127.255.255", "100.64.0.0/10"), ("100.128.0.0", nil),
            ("126.255.255.255", nil), ("127.0.0.1", "127.0.0.0/8"), ("127.255.255.255", "127.0.0.0/8"), ("128.0.0.0", nil),
            ("169.253.255.255", nil), ("169.254.169.254", "169.254.0.0/16"), ("169.255.0.0", nil),
            ("172.15.255.255", nil), ("172.16.0.0", "172.16.0.0/12"), ("172.31.255.255", "172.16.0.0/12"), ("172.32.0.0", nil),
            ("192.167.255.255", nil), ("192.168.0.0", "192.168.0.0/16"), ("192.168.255.255", "192.168.0.0/16"), ("192.169.0.0", nil),
            ("223.255.255.255", nil), ("224.0.0.0", "224.0.0.0/4"), ("239.255.255.255", "224.0.0.0/4"),
            ("240.0.0.0", "240.0.0.0/4"), ("255.255.255.254", "240.0.0.0/4"), ("255.255.255.255", "255.255.255.255/32"),
            ("8.8.8.8", nil), ("93.184.215.14", nil), ("1.1.1.1", nil),
        ]
        for (address, expected) in cases {
            #expect(try Self.block(address) == expected, "\(address)")
        }
        #expect(try #require(IPAddress("169.254.169.254")).specialUse?.name.contains("link-local") == true)
        #expect(try #require(IPAddress("127.0.0.1")).specialUse?.description == "127.0.0.0/8, loopback (RFC 1122)")
    }

    @Test func ipv6BlocksAreFoundAtTheirEdgesAndTheirNeighboursArePublic() throws {
        let cases: [(String, String?)] = [
            ("::", "::/128"), ("::1", "::1/128"), ("::2", "0.0.0.0/8"), ("1::", nil),
            ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", nil), ("fc00::", "fc00::/7"), ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::/7"),
            ("fe00::", nil), ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", nil), ("fe80::", "fe80::/10"),
            ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::/10"), ("fec0::1", "fec0::/10"),
            ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::/10"), ("ff00::", "ff00::/8"), ("ff02::1", "ff00::/8"),
            ("2001:db8::1", "2001:db8::/32"), ("2001:4860:4860::8888", nil), ("2606:4700:4700::1111", nil),
            ("64:ff9b:1::1", "64:ff9b:1::/48"), ("100::1", "100::/64"),
        ]
        for (address, expected) in cases {
            #expect(try Self.block(address) == expected, "\(address)")
        }
    }

    @Test func ipv6FormsOfIPv4AddressesAreJudgedByTheirIPv4Address() throws {
        let cases: [(String, String?)] = [
            ("::ffff:127.0.0.1", "127.0.0.0/8"), ("::ffff:7f00:1", "127.0.0.0/8"), ("::ffff:169.254.169.254", "169.254.0.0/16"),
            ("::ffff:10.0.0.1", "10.0.0.0/8"), ("::ffff:0.0.0.0", "0.0.0.0/8"), ("::ffff:255.255.255.255", "255.255.255.255/32"),
            ("::127.0.0.1", "127.0.0.0/8"), ("::192.168.1.1", "192.168.0.0/16"), ("::ffff:0:a9fe:a9fe", "169.254.0.0/16"),
            ("64:ff9b::127.0.0.1", "127.0.0.0/8"), ("64:ff9b::100.64.0.1", "100.64.0.0/10"),
            ("2002:c0a8:101::1", "192.168.0.0/16"), ("2002:a00:1::", "10.0.0.0/8"),
            ("::ffff:8.8.8.8", nil), ("64:ff9b::8.8.8.8", nil), ("2002:808:808::1", nil),
        ]
        for (address, expected) in cases {
            #expect(try Self.block(address) == expected, "\(address)")
        }
    }
}
