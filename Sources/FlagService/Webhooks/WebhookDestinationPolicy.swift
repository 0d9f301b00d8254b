import Dispatch
import Foundation
import HTTPServer
import Synchronization

/// Where webhooks may be sent (`docs/operations.md`, "Webhook destinations"): never to an address inside, unless the
/// deployment allows that network on purpose (`--webhook-allow-network`).
///
/// Whoever can register a webhook makes the server POST to a URL of their choosing; to the server's loopback
/// (PostgreSQL on 127.0.0.1:5432), a cloud's instance metadata (169.254.169.254) or a private network, that is a
/// server-side request forgery (OWASP API Security Top 10 2023, API7). So a URL's host is mapped to addresses as the
/// client library would map it (`HostResolver`: `getaddrinfo`, which also reads glibc's numeric forms `127.1`,
/// `0x7f.1`, `2130706433`), EVERY address is checked against `IPAddress.specialUse`, and the delivery then connects
/// to one of those checked addresses only (`ClientRequest.connectAddress`): a name that resolves elsewhere on a
/// second lookup (DNS rebinding) is never looked up again by the connection. Checked at registration and again at
/// every attempt.
public struct WebhookDestinationPolicy: Sendable {
    /// Networks deliveries may reach although they are inside (the receivers of a deployment that has them there).
    public var allowedNetworks: [IPNetwork]
    /// Turns a host name into its addresses (`HostResolver`; tests give one that answers what they need).
    public var resolve: @Sendable (String) throws(HostResolverError) -> [IPAddress]
    /// How long a lookup may take before the host counts as unresolved. `getaddrinfo` cannot be cancelled, and a
    /// DNS server that does not answer holds it for glibc's 5 s per try: a registration must not hang on it, nor
    /// an attempt hold its slot beyond its own timeout (the lookup goes on, abandoned, on its own thread).
    public var lookupTimeout: Duration = .seconds(3)

    /// What a URL's host allows.
    public enum Decision: Sendable, Equatable {
        /// Every address of the host may be sent to; connect to one of these (never to another).
        case connect([IPAddress])
        /// Not sent: the reason says which address is inside, and what it is.
        case refused(String)
        /// The host has no address now (the lookup failed, or it returned none).
        case unresolved(String)
    }

    /// Refuses every block of `IPAddress.specialUse` except `allowedNetworks`, resolving with `HostResolver`.
    public init(allowedNetworks: [IPNetwork] = [], resolve: @escaping @Sendable (String) throws(HostResolverError) -> [IPAddress]
                = { host throws(HostResolverError) in try HostResolver().addresses(of: host) }) {
        self.allowedNetworks = allowedNetworks
        self.resolve = resolve
    }

    /// What `url`'s host allows (blocking while the name is looked up).
    public func decide(_ url: String) -> Decision {
        guard let host = Self.host(of: url) else { return .refused("the URL has no host") }
        guard !host.contains("%") || host.hasPrefix("[") else {
            return .refused("the host \(host) is percent-encoded; write it as the name or address it stands for")
        }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast().prefix { $0 != "%" }) : host
        var name = bare.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let addresses: [IPAddress]
        let how: String
        if let literal = IPAddress(bare) {
            (addresses, how) = ([literal], "is")
        } else if name == "localhost" || name.hasSuffix(".localhost") {
            // RFC 6761 §6.3: localhost names are the loopback whatever a resolver says (curl answers them itself).
            (addresses, how) = (Self.loopback, "is a loopback name (RFC 6761), that is")
        } else {
            switch lookUp(bare) {
            case .success(let found)?: addresses = found
            case .failure(let error)?: return .unresolved(error.description)
            case nil: return .unresolved("cannot resolve \(bare): no answer within \(lookupTimeout)")
            }
            how = "resolves to"
            guard !addresses.isEmpty else { return .unresolved("cannot resolve \(bare): no address") }
        }
        for address in addresses {
            guard let use = address.specialUse, !isAllowed(address) else { continue }
            let carried = address.embeddedIPv4.map { ", which carries \($0)," } ?? ""
            return .refused("\(host) \(how) \(address)\(carried) in \(use): webhooks are not sent to addresses inside "
                + "(flagserver --webhook-allow-network allows a network on purpose)")
        }
        return .connect(addresses)
    }

    /// `resolve(host)` on a thread of its own, or nil when it has not answered within `lookupTimeout`.
    func lookUp(_ host: String) -> Result<[IPAddress], HostResolverError>? {
        final class Answer: Sendable {
            let result = Mutex<Result<[IPAddress], HostResolverError>?>(nil)
            let done = DispatchSemaphore(value: 0)
        }
        let answer = Answer()
        let resolve = self.resolve
        let thread = Thread {
            let result: Result<[IPAddress], HostResolverError>
            do throws(HostResolverError) {
                result = .success(try resolve(host))
            } catch {
                result = .failure(error)
            }
            answer.result.withLock { $0 = result }
            answer.done.signal()
        }
        thread.name = "flagserver-resolve"
        thread.start()
        let (seconds, attoseconds) = lookupTimeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        guard answer.done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success else { return nil }
        return answer.result.withLock { $0 }
    }

    /// Whether `address`, or the IPv4 address it carries, is in an allowed network.
    func isAllowed(_ address: IPAddress) -> Bool {
        allowedNetworks.contains { network in network.contains(address) || address.embeddedIPv4.map(network.contains) == true }
    }

    /// 127.0.0.1 and ::1.
    static let loopback = ["127.0.0.1", "::1"].compactMap { IPAddress($0) }

    /// The host of an `http(s)://` URL as written: after any user information, before the port; an IPv6 literal
    /// keeps its brackets. Nil when there is none.
    static func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        let host = hostAndPort.hasPrefix("[")
            ? hostAndPort.prefix { $0 != "]" } + (hostAndPort.contains("]") ? "]" : "")
            : hostAndPort.prefix { $0 != ":" }
        return host.isEmpty ? nil : String(host)
    }
}
