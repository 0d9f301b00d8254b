import CEpoll
import Glibc

/// Every raw system call of the module, with EINTR retried where a retry is correct.
enum Socket {
    /// Opens a non-blocking listening socket on `host:port` with SO_REUSEADDR, and SO_REUSEPORT when
    /// `reusePort` (so each event loop can have its own listener on the same port). Returns the socket
    /// and the bound port.
    static func listen(host: String, port: Int, backlog: Int, reusePort: Bool, deferAcceptSeconds: Int? = nil) throws(HTTPError) -> (fd: Int32, port: Int) {
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
        // Accepted sockets inherit TCP_NODELAY from the listener on Linux: one setsockopt per server
        // instead of one per connection.
        _ = cepoll_set_int_option(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        if let seconds = deferAcceptSeconds {
            // Best effort: without it connections are accepted at once, which is only slower.
            _ = cepoll_set_int_option(fd, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, Int32(clamping: max(1, seconds)))
        }
        guard !reusePort || cepoll_set_int_option(fd, SOL_SOCKET, SO_REUSEPORT, 1) == 0 else {
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

    /// Outcome of one accept.
    enum AcceptResult {
        case accepted(Int32, HTTPPeerAddress)
        /// ECONNABORTED, EMFILE, …: this connection is lost or must wait; the errno tells which.
        case failed(Int32)
    }

    /// Accepts one connection (non-blocking, close-on-exec, TCP_NODELAY inherited); nil when none is waiting.
    static func accept(_ listener: Int32) -> AcceptResult? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = cepoll_accept(listener, &storage, &length)
            if fd >= 0 {
                return .accepted(fd, peerAddress(storage))
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case let e: return .failed(e)
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
            let n = cepoll_read(fd, buffer.baseAddress, buffer.count)
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
    /// With `finBehind` (the caller closes the socket right after its last byte), MSG_MORE holds the tail
    /// back so the close sends it together with the FIN: one segment less per `Connection: close` request.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, finBehind: Bool = false) -> WriteResult {
        while true {
            let n = finBehind
                ? cepoll_send_more(fd, bytes.baseAddress, bytes.count)
                : cepoll_send(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .wrote(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let e: return .failed(e)
            }
        }
    }

    static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    static func close(_ fd: Int32) { _ = cepoll_close(fd) }

    /// Another descriptor for the same socket (each loop closes its own; the socket closes with the last).
    static func duplicate(_ fd: Int32) throws(HTTPError) -> Int32 {
        let copy = cepoll_dup_cloexec(fd)
        guard copy >= 0 else { throw HTTPError.system("fcntl(F_DUPFD_CLOEXEC)", errno: errno) }
        return copy
    }

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

    /// The CPU that handled the socket's last incoming packet (`SO_INCOMING_CPU`), -1 if unknown.
    static func incomingCPU(_ fd: Int32) -> Int32 { cepoll_incoming_cpu(fd) }

    /// The CPU the calling thread runs on now, -1 if unknown (no system call).
    static func currentCPU() -> Int32 { cepoll_current_cpu() }
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

/// The other raw calls: epoll, eventfd, clocks, threads, formatting helpers from libc.
enum System {
    static let readable = CEPOLL_IN
    static let writable = CEPOLL_OUT
    static let errorOrHangUp = CEPOLL_ERR | CEPOLL_HUP
    /// With a listener shared by several epoll sets: wake one waiting loop per new connection, not all.
    static let exclusive = CEPOLL_EXCLUSIVE

    static func epollCreate() throws(HTTPError) -> Int32 {
        let fd = cepoll_create()
        guard fd >= 0 else { throw HTTPError.system("epoll_create1", errno: errno) }
        return fd
    }

    /// A non-blocking eventfd for cross-thread wake-ups.
    static func eventFD() throws(HTTPError) -> Int32 {
        let fd = cepoll_eventfd()
        guard fd >= 0 else { throw HTTPError.system("eventfd", errno: errno) }
        return fd
    }

    static func epollAdd(_ epfd: Int32, _ fd: Int32, _ events: UInt32, _ token: UInt64) -> Bool {
        cepoll_add(epfd, fd, events, token) == 0
    }

    static func epollModify(_ epfd: Int32, _ fd: Int32, _ events: UInt32, _ token: UInt64) {
        _ = cepoll_mod(epfd, fd, events, token)
    }

    static func epollRemove(_ epfd: Int32, _ fd: Int32) { _ = cepoll_del(epfd, fd) }

    /// Room for `count` epoll events (their packed layout stays on the C side).
    static func allocateEvents(_ count: Int32) -> UnsafeMutableRawPointer {
        .allocate(byteCount: Int(count) * cepoll_event_size(), alignment: 16)
    }

    /// epoll_wait; -1 with EINTR is returned as 0 events, other failures as nil.
    static func epollWait(_ epfd: Int32, _ events: UnsafeMutableRawPointer, _ max: Int32, timeoutMs: Int32) -> Int? {
        let n = cepoll_wait(epfd, events, max, timeoutMs)
        if n >= 0 { return Int(n) }
        return errno == EINTR ? 0 : nil
    }

    static func event(_ events: UnsafeMutableRawPointer, _ i: Int) -> (token: UInt64, flags: UInt32) {
        (cepoll_event_data(events, Int32(i)), cepoll_event_flags(events, Int32(i)))
    }

    static func wallSeconds() -> Int64 { cepoll_wall_seconds() }

    /// Broken-down UTC time.
    static func utc(_ seconds: Int64) -> tm {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return parts
    }

    /// inet_ntop over raw address bytes.
    static func numericHost(family: Int32, address: [UInt8]) -> String {
        let size = Int(INET6_ADDRSTRLEN)
        var buffer = [CChar](repeating: 0, count: size + 1)
        let ok = address.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(size)) != nil
            }
        }
        guard ok else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func onlineCores() -> Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    static func writeStandardError(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func sleep(milliseconds: Int) {
        var pause = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
    }

    final class ThreadBody: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a joinable thread running `body`.
    static func startThread(_ body: @escaping @Sendable () -> Void) throws(HTTPError) -> pthread_t {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            throw HTTPError.system("pthread_create", errno: rc)
        }
        return thread
    }

    static func join(_ thread: pthread_t) { pthread_join(thread, nil) }
}
