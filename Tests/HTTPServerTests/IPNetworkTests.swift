import Testing
@testable import HTTPServer

/// CIDR blocks: what parses, what is refused and why, and which addresses are inside.
@Suite struct IPNetworkTests {
    func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text), "\(text)") }

    @Test func cidrTextParsesAndContainsItsAddresses() throws {
        let private10 = try IPNetwork("10.0.0.0/8")
        #expect(private10.description == "10.0.0.0/8" && private10.prefixLength == 8)
        #expect(try private10.contains(ip("10.255.255.255")))
        #expect(try !private10.contains(ip("11.0.0.0")))
        #expect(try !private10.contains(ip("::ffff:10.0.0.1")), "another family is never inside")
        let cgnat = try IPNetwork("100.64.0.0/10")
        #expect(try cgnat.contains(ip("100.127.255.255")) && !cgnat.contains(ip("100.128.0.0")))
        let ula = try IPNetwork("FC00::/7")
        #expect(try ula.description == "fc00::/7" && ula.contains(ip("fdff::1")) && !ula.contains(ip("fe00::")))
        #expect(try IPNetwork("0.0.0.0/0").contains(ip("203.0.113.9")))
        #expect(try IPNetwork("::/0").contains(ip("::1")))
        let host = try IPNetwork("192.0.2.7")
        #expect(try host.prefixLength == 32 && host.contains(ip("192.0.2.7")) && !host.contains(ip("192.0.2.8")))
        #expect(try IPNetwork("::1").description == "::1/128")
        #expect(try IPNetwork("172.16.0.0/12").contains(ip("172.31.255.255")))
    }

    @Test func invalidNetworksAreRefusedWithTheReason() {
        let refused: [(String, String)] = [
            ("10.0.0.1/8", "bits are set past the prefix length (the block is 10.0.0.0/8)"),
            ("10.0.0.0/33", "the prefix length must be a whole number from 0 to 32"),
            ("fc00::/129", "the prefix length must be a whole number from 0 to 128"),
            ("10.0.0.0/", "the prefix length must be a whole number from 0 to 32"),
            ("10.0.0.0/+8", "the prefix length must be a whole number from 0 to 32"),
            ("10.0.0.0/8/8", "the prefix length must be a whole number from 0 to 32"),
            ("10/8", "'10' is not a numeric IPv4 or IPv6 address"),
            ("localhost", "'localhost' is not a numeric IPv4 or IPv6 address"),
            ("", "'' is not a numeric IPv4 or IPv6 address"),
        ]
        for (text, reason) in refused {
            #expect(throws: IPNetwork.ParseError(text: text, reason: reason), "\(text)") { try IPNetwork(text) }
        }
        #expect(IPNetwork.ParseError(text: "x", reason: "r").description == "'x' is not a network (CIDR such as 10.0.0.0/8 or fc00::/7): r")
    }
}
