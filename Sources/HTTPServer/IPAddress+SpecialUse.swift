/// The address blocks that are not the public internet: IANA's special-purpose registries (RFC 6890) for IPv4 and
/// IPv6, every block they mark not globally reachable, plus multicast. A server that sends requests to URLs others
/// give it (webhooks) refuses these, so that a URL cannot make it reach into its own host or network (server-side
/// request forgery, OWASP API Security Top 10 2023, API7).
extension IPAddress {
    /// A block an address was found in, and what the block is.
    public struct SpecialUse: Sendable, Equatable, CustomStringConvertible {
        /// The block.
        public let network: IPNetwork
        /// What it is, with the document that says so: `loopback (RFC 1122)`.
        public let name: String

        /// `127.0.0.0/8, loopback (RFC 1122)`.
        public var description: String { "\(network), \(name)" }
    }

    /// The special-purpose block this address is in, or nil for a public address. An IPv6 form that carries an IPv4
    /// address (`embeddedIPv4`) is judged by that IPv4 address, as that is where a connection to it goes.
    public var specialUse: SpecialUse? {
        if let v4 = embeddedIPv4 { return v4.specialUse }
        return (isIPv4 ? Self.specialIPv4 : Self.specialIPv6).first { $0.network.contains(self) }
    }

    /// IPv4, most specific first (broadcast is inside 240.0.0.0/4).
    static let specialIPv4: [SpecialUse] = [
        special("0.0.0.0", 8, "this network, unspecified (RFC 1122 §3.2.1.3): Linux connects 0.0.0.0 to the local host"),
        special("10.0.0.0", 8, "private (RFC 1918)"),
        special("100.64.0.0", 10, "shared address space, carrier-grade NAT (RFC 6598)"),
        special("127.0.0.0", 8, "loopback (RFC 1122)"),
        special("169.254.0.0", 16, "link-local (RFC 3927), where clouds serve instance metadata"),
        special("172.16.0.0", 12, "private (RFC 1918)"),
        special("192.0.0.0", 24, "IETF protocol assignments (RFC 6890)"),
        special("192.0.2.0", 24, "documentation, TEST-NET-1 (RFC 5737)"),
        special("192.168.0.0", 16, "private (RFC 1918)"),
        special("198.18.0.0", 15, "benchmarking (RFC 2544)"),
        special("198.51.100.0", 24, "documentation, TEST-NET-2 (RFC 5737)"),
        special("203.0.113.0", 24, "documentation, TEST-NET-3 (RFC 5737)"),
        special("224.0.0.0", 4, "multicast (RFC 5771)"),
        special("255.255.255.255", 32, "limited broadcast (RFC 919)"),
        special("240.0.0.0", 4, "reserved (RFC 1112)"),
    ]

    /// IPv6 (the IPv4-carrying forms are judged by their IPv4 address before this table is asked).
    static let specialIPv6: [SpecialUse] = [
        special("::", 128, "unspecified (RFC 4291 §2.5.2)"),
        special("::1", 128, "loopback (RFC 4291 §2.5.3)"),
        special("64:ff9b:1::", 48, "local-use IPv4/IPv6 translation (RFC 8215)"),
        special("100::", 64, "discard-only (RFC 6666)"),
        special("2001::", 23, "IETF protocol assignments (RFC 2928)"),
        special("2001:db8::", 32, "documentation (RFC 3849)"),
        special("3fff::", 20, "documentation (RFC 9637)"),
        special("5f00::", 16, "segment routing SIDs (RFC 9602)"),
        special("fc00::", 7, "unique local, private (RFC 4193)"),
        special("fe80::", 10, "link-local (RFC 4291 §2.5.6)"),
        special("fec0::", 10, "site-local, deprecated (RFC 3879)"),
        special("ff00::", 8, "multicast (RFC 4291 §2.7)"),
    ]

    /// An entry of the tables. Their literals are this file's, not input: a typo would show as `0.0.0.0/N` in the
    /// entry's description, which `IPAddress+SpecialUseTests` compares with the text written here.
    private static func special(_ address: String, _ length: Int, _ name: String) -> SpecialUse {
        SpecialUse(network: IPNetwork(IPAddress(address) ?? IPAddress(unchecked: [0, 0, 0, 0]), length), name: name)
    }
}
