/// Turns a host name into the addresses a client would connect to, the way the client's own library does it:
/// `getaddrinfo` (glibc: `/etc/hosts`, then DNS; the numeric forms `inet_aton` takes, `127.1`, `0x7f.1`, `0177.0.0.1`,
/// `2130706433`, are addresses too). `AI_ADDRCONFIG` is off, so every address of the name is returned whatever
/// families this host has configured: a check of the addresses must see all of them.
public struct HostResolver: Sendable {
    /// The system's resolver.
    public init() {}

    /// The addresses of `host` (a name or a numeric address, IPv6 without brackets), in `getaddrinfo`'s order
    /// (RFC 6724's preference), each once.
    public func addresses(of host: String) throws(HostResolverError) -> [IPAddress] {
        try AddressSystem.resolve(host)
    }
}

/// Why `getaddrinfo` gave no address: its `EAI_*` code and, for `EAI_SYSTEM`, `errno`.
public struct HostResolverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name that was looked up.
    public let host: String
    /// `getaddrinfo`'s return value (`EAI_NONAME`, `EAI_AGAIN`, ...).
    public let code: Int32
    /// `errno` when `code` is `EAI_SYSTEM`.
    public let errno: Int32?
    /// `gai_strerror(code)`.
    public let message: String

    /// A failed lookup of `host` (also for resolvers other than `HostResolver`: a test's, a cache's).
    public init(host: String, code: Int32, errno: Int32?, message: String) {
        self.host = host
        self.code = code
        self.errno = errno
        self.message = message
    }

    /// `cannot resolve hooks.example: Name or service not known (EAI -2)`.
    public var description: String {
        "cannot resolve \(host): \(message) (EAI \(code)\(errno.map { ", errno \($0)" } ?? ""))"
    }
}
