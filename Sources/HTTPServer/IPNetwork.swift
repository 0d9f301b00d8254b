/// A block of addresses in CIDR notation (RFC 4632 §3.1 for IPv4, RFC 4291 §2.3 for IPv6): `10.0.0.0/8`, `fc00::/7`.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (every bit past the prefix is 0).
    public let address: IPAddress
    /// How many leading bits every address of the block shares: 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// Why a text is not a network, for a usage error or a refused option.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text as given.
        public let text: String
        /// What is wrong with it.
        public let reason: String

        /// `'10.0.0.1/8' is not a network (CIDR such as 10.0.0.0/8 or fc00::/7): ...`
        public var description: String { "'\(text)' is not a network (CIDR such as 10.0.0.0/8 or fc00::/7): \(reason)" }
    }

    /// The network `text` spells: a numeric address, `/`, a prefix length; an address alone is the block of that
    /// one address (`/32`, `/128`). Bits set past the prefix (`10.0.0.1/8`) are refused rather than cleared: the
    /// writer meant another block, or a host, and either way guessing would allow what nobody asked for.
    public init(_ text: String) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else {
            throw ParseError(text: text, reason: "'\(parts[0])' is not a numeric IPv4 or IPv6 address")
        }
        let maximum = address.bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber), let value = Int(parts[1]), (0...maximum).contains(value) else {
                throw ParseError(text: text, reason: "the prefix length must be a whole number from 0 to \(maximum)")
            }
            length = value
        }
        guard Self.masked(address.bytes, length) == address.bytes else {
            let first = IPAddress(bytes: Self.masked(address.bytes, length)).map { "\($0)/\(length)" } ?? ""
            throw ParseError(text: text, reason: "bits are set past the prefix length (the block is \(first))")
        }
        self.address = address
        self.prefixLength = length
    }

    /// A network known to be valid (the tables of this module).
    init(_ address: IPAddress, _ prefixLength: Int) {
        self.address = IPAddress(bytes: Self.masked(address.bytes, prefixLength)) ?? address
        self.prefixLength = prefixLength
    }

    /// `10.0.0.0/8`.
    public var description: String { "\(address)/\(prefixLength)" }

    /// Whether `candidate` is inside the block (an address of the other family never is).
    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && Self.masked(candidate.bytes, prefixLength) == address.bytes
    }

    /// `bytes` with every bit past the first `length` cleared.
    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        }
    }
}
