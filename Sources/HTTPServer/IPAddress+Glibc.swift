import Glibc

/// The C calls behind `IPAddress` and `HostResolver` (`inet_pton`, `inet_ntop`, `getaddrinfo`), in one place.
enum AddressSystem {
    /// `inet_pton` of `text` as IPv4, then as IPv6: the address's bytes, or nil.
    static func numericBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// `inet_ntop` of 4 or 16 bytes.
    static func text(_ bytes: [UInt8]) -> String {
        System.numericHost(family: bytes.count == 4 ? AF_INET : AF_INET6, address: bytes)
    }

    /// `getaddrinfo(host, nil, {AF_UNSPEC, SOCK_STREAM, no flags})`: every address, each once, in its order.
    static func resolve(_ host: String) throws(HostResolverError) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &result)
        guard code == 0 else {
            let message = gai_strerror(code).map { String(cString: $0) } ?? "getaddrinfo failed"
            throw HostResolverError(host: host, code: code, errno: code == EAI_SYSTEM ? Glibc.errno : nil, message: message)
        }
        defer { freeaddrinfo(result) }
        var addresses: [IPAddress] = []
        var next = result
        while let entry = next {
            if let found = address(entry.pointee), !addresses.contains(found) { addresses.append(found) }
            next = entry.pointee.ai_next
        }
        return addresses
    }

    private static func address(_ info: addrinfo) -> IPAddress? {
        guard let socketAddress = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin_addr
                return IPAddress(unchecked: withUnsafeBytes(of: &address) { Array($0) })
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin6_addr
                return IPAddress(unchecked: withUnsafeBytes(of: &address) { Array($0) })
            }
        default:
            return nil
        }
    }
}
