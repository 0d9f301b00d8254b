/// The proxies whose `X-Forwarded-For` / `X-Real-IP` fields are believed, and the client address of a
/// request derived from them.
///
/// Those fields are only text a client can write: believed from anyone, they let a client pick any
/// address (a fresh rate-limit bucket per request, a failed-login counter that never fills). So they are
/// read only when the TCP peer is a configured proxy, and `X-Forwarded-For` is walked from the right
/// (the hop nearest to us), skipping trusted proxies: the first other address is the one the outermost
/// trusted proxy saw. nginx's `$proxy_add_x_forwarded_for` appends `$remote_addr` to whatever the client
/// sent, so what the client wrote stays to the left of it and is never taken.
public struct HTTPTrustedProxies: Sendable, Equatable {
    /// The trusted addresses in canonical numeric form (`inet_ntop` of `inet_pton`).
    public let addresses: Set<String>

    /// No proxy is trusted: the client address is always the TCP peer.
    public static let none = HTTPTrustedProxies(canonical: [])

    private init(canonical: Set<String>) { addresses = canonical }

    /// Trusts `addresses` (numeric IPv4 or IPv6). Returns nil when one is not a numeric address.
    public init?(_ addresses: [String]) {
        var canonical = Set<String>()
        for address in addresses {
            guard let normal = Self.canonical(address) else { return nil }
            canonical.insert(normal)
        }
        self.addresses = canonical
    }

    /// The client's numeric address: the TCP peer's, unless the peer is a trusted proxy that forwarded one.
    public func clientAddress(_ request: HTTPRequest, peer: HTTPPeerAddress) -> String {
        let host = peer.host
        guard !addresses.isEmpty, addresses.contains(host) else { return host }
        let forwarded = request.headers.values(for: .xForwardedFor)
        if !forwarded.isEmpty {
            // Several fields are one comma-separated list in order (RFC 9110 §5.3).
            let hops = forwarded.joined(separator: ",").split(separator: ",").map { HTTPHeaders.trimmed($0) }
            var candidate = host
            for hop in hops.reversed() {
                guard let address = Self.canonical(String(hop)) else { return candidate }  // junk: stop at what is known
                candidate = address
                if !addresses.contains(address) { return address }
            }
            return candidate
        }
        if let real = request.headers[.xRealIP], let address = Self.canonical(String(HTTPHeaders.trimmed(Substring(real)))) {
            return address
        }
        return host
    }

    /// `text` as `inet_ntop` writes it, or nil when it is not a numeric IPv4 or IPv6 address.
    static func canonical(_ text: String) -> String? {
        IPAddress(text)?.description
    }
}
