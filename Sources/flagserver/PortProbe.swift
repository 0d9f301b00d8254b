import Glibc

/// Refuses a port another process is already listening on.
///
/// HTTPServer binds with SO_REUSEPORT (one listener per event loop), and Linux then lets a SECOND process
/// of the same user bind the same port: two flagservers would silently share the traffic, each with its own
/// database. A plain bind without SO_REUSEPORT fails with EADDRINUSE whenever anyone listens there, so
/// flagserver tries one (and closes it) before starting. There is a small window between the probe and the
/// real bind; it only narrows, not closes, the hole.
enum PortProbe {
    /// nil when `host:port` looks free (or `port` is 0), otherwise a sentence saying why not.
    static func problem(host: String, port: Int) -> String? {
        guard port != 0 else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            return nil  // the server's own bind reports an unresolvable host with its cause
        }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var one: Int32 = 1
        // SO_REUSEADDR only skips connections in TIME_WAIT; a live listener still makes bind fail.
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 && errno == EADDRINUSE {
            return "port \(port) on \(host) is already in use (another flagserver?)"
        }
        return nil
    }
}
