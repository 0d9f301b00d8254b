/// An IPv4 or IPv6 address as its bytes in network order: what a resolver returns and a socket connects to.
///
/// Text is read strictly (`inet_pton`: dotted decimal with four parts, or RFC 4291 §2.2 IPv6 text) and written
/// canonically (`inet_ntop`, RFC 5952). The lenient IPv4 forms glibc's `inet_aton` also takes (`127.1`, `0x7f.1`,
/// `2130706433`) are names here: `HostResolver` turns them into addresses, as `getaddrinfo` does for a client.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), most significant first.
    public let bytes: [UInt8]

    /// The address with these bytes; nil unless there are 4 or 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Bytes known to be 4 or 16 (from `getaddrinfo`, or this module's tables).
    init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The address `text` spells in numeric form (no brackets, no zone), or nil.
    public init?(_ text: String) {
        guard let bytes = AddressSystem.numericBytes(text) else { return nil }
        self.bytes = bytes
    }

    /// Whether it is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// `inet_ntop`'s text: `127.0.0.1`, `::ffff:127.0.0.1`, `2001:db8::1`.
    public var description: String { AddressSystem.text(bytes) }

    /// The IPv4 address an IPv6 address carries and is delivered to, or nil: IPv4-mapped (`::ffff:a.b.c.d`, RFC 4291
    /// §2.5.5.2: a dual-stack socket connects over IPv4), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765 §2.1: a SIIT
    /// translator connects to it), IPv4-compatible (`::a.b.c.d`, deprecated by §2.5.5.1; `::` and `::1` are not),
    /// NAT64's well-known prefix (`64:ff9b::/96`, RFC 6052: a translator connects to it) and
    /// 6to4 (`2002:aabb:ccdd::/48`, RFC 3056: a relay tunnels to it).
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let prefix = bytes[0..<12]
        if prefix.allSatisfy({ $0 == 0 }) {
            return bytes[12...].allSatisfy({ $0 == 0 }) || bytes[12...] == [0, 0, 0, 1] ? nil : IPAddress(bytes: Array(bytes[12...]))
        }
        if prefix.dropLast(2).allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return IPAddress(bytes: Array(bytes[12...])) }
        if bytes[0..<8].allSatisfy({ $0 == 0 }) && bytes[8] == 0xff && bytes[9] == 0xff && bytes[10] == 0 && bytes[11] == 0 {
            return IPAddress(bytes: Array(bytes[12...]))
        }
        if bytes[0..<4] == [0x00, 0x64, 0xff, 0x9b] && bytes[4..<12].allSatisfy({ $0 == 0 }) { return IPAddress(bytes: Array(bytes[12...])) }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    /// The address in URL authority form: IPv6 in brackets (RFC 3986 §3.2.2), IPv4 as is.
    public var uriHost: String { isIPv4 ? description : "[\(description)]" }
}
