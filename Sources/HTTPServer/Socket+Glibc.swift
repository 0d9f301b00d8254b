import CEpoll
import Glibc

/// Every raw system call of the module, with EINTR retried where a retry is correct.
enum Socket {
    /// Opens a non-blocking listening socket on `host:port` with SO_REUSEADDR and SO_REUSEPORT (so each
    /// event loop can have its own listener on the same port). Returns the socket and the bound port.
    static func listen(host: String, port: Int, backlog: Int) throws(HTTPError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            var e = HTTPError.system("getaddrinfo(\(host))", errno: rc)
            e.message = "cannot resolve \(host): \(String(cString: gai_strerror(rc)))"
            throw e
        }
        defer { freeaddrinfo(result) }
        let fd = cepoll_tcp_socket(info.pointee.ai_family)
        guard fd >= 0 else { throw HTTPError.system("socket", errno: errno) }
        _ = cepoll_set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        guard cepoll_set_int_option(fd, SOL_SOCKET, SO_REUSEPORT, 1) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPError.system("setsockopt(SO_REUSEPORT)", errno: e)
        }
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPError.system("bind(\(host):\(port))", errno: e)
        }
        guard Glibc.listen(fd, Int32(clamping: backlog)) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPError.system("listen", errno: e)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPError.system("getsockname", errno: e)
        }
        return (fd, peerAddress(storage).port)
    }

    /// Accepts one connection (non-blocking, close-on-exec, TCP_NODELAY); nil when none is waiting.
    static func accept(_ listener: Int32) -> (fd: Int32, peer: HTTPPeerAddress)?? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = cepoll_accept(listener, &storage, &length)
            if fd >= 0 {
                _ = cepoll_set_int_option(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                return .some((fd, peerAddress(storage)))
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .none
            // The peer gave up while queued, or we are out of descriptors: skip this one, keep serving.
            default: return .some(nil)
            }
        }
    }

    static func peerAddress(_ storage: sockaddr_storage) -> HTTPPeerAddress {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &s) { raw in
                let a = raw.load(as: sockaddr_in.self)
                return HTTPPeerAddress(family: 4, port: Int(UInt16(bigEndian: a.sin_port)), high: 0, low: UInt64(a.sin_addr.s_addr))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &s) { raw in
                let a = raw.load(as: sockaddr_in6.self)
                var addr = a.sin6_addr
                let (h, l) = withUnsafeBytes(of: &addr) { ($0.load(fromByteOffset: 0, as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
                return HTTPPeerAddress(family: 6, port: Int(UInt16(bigEndian: a.sin6_port)), high: UInt64(bigEndian: h), low: UInt64(bigEndian: l))
            }
        default:
            return .unspecified
        }
    }

    /// Result of one read.
    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case endOfStream
        case failed(Int32)
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let e: return .failed(e)
            }
        }
    }

    /// Result of one send.
    enum WriteResult {
        case wrote(Int)
        case wouldBlock
        case failed(Int32)
    }

    /// send(2) with MSG_NOSIGNAL, so a vanished peer gives EPIPE instead of killing the process.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteResult {
        while true {
            let n = cepoll_send(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .wrote(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let e: return .failed(e)
            }
        }
    }

    static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Adds 1 to an eventfd, waking the loop that polls it.
    static func signal(eventFD fd: Int32) {
        var one: UInt64 = 1
        while Glibc.write(fd, &one, 8) < 0 && errno == EINTR {}
    }

    /// Resets an eventfd to 0.
    static func drain(eventFD fd: Int32) {
        var value: UInt64 = 0
        while Glibc.read(fd, &value, 8) < 0 && errno == EINTR {}
    }

    static func monotonicNanoseconds() -> UInt64 { cepoll_monotonic_ns() }

    static func currentThread() -> UInt64 { cepoll_thread_id() }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    var nanoseconds: UInt64 {
        let (s, a) = components
        guard s >= 0 else { return 0 }
        let (m, o) = UInt64(s).multipliedReportingOverflow(by: 1_000_000_000)
        return o ? .max : m &+ UInt64(max(0, a / 1_000_000_000))
    }
}
