import Glibc

/// A failed socket call in a test helper, with its errno.
package struct SocketError: Error, CustomStringConvertible {
    /// The call that failed, e.g. `bind`.
    var call: String
    /// `errno` right after the call.
    var code: Int32
    /// For example `bind: Address already in use (errno 98)`.
    package var description: String { "\(call): \(String(cString: strerror(code))) (errno \(code))" }
}

/// Every raw POSIX socket call of the test helpers, kept together.
package enum Socket {
    /// A listening TCP socket on 127.0.0.1 with a kernel-chosen port (never a fixed one).
    package static func listenOnLoopback(backlog: Int32 = 64) throws(SocketError) -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { let code = errno; close(fd); throw SocketError(call: "bind", code: code) }
        guard listen(fd, backlog) == 0 else { let code = errno; close(fd); throw SocketError(call: "listen", code: code) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { let code = errno; close(fd); throw SocketError(call: "getsockname", code: code) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port that nothing listens on: bound by us, then closed, so connecting is refused.
    package static func refusedPort() throws(SocketError) -> UInt16 {
        let (fd, port) = try listenOnLoopback()
        close(fd)
        return port
    }

    /// A loopback port bound but not listening: connecting is refused, and unlike ``refusedPort()`` no other
    /// test's listener can be given the same port meanwhile. Close the descriptor when done.
    package static func boundNotListening() throws(SocketError) -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { let code = errno; close(fd); throw SocketError(call: "bind", code: code) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Starts a connect to 127.0.0.1:`port` without waiting for it (to fill a listener's accept queue).
    package static func connectNonBlocking(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else { close(fd); return nil }
        return fd
    }

    /// Waits up to `milliseconds` for `fd` to become readable (or hung up).
    package static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Accepts one connection, or `nil` (the caller polls first, so this does not block for long).
    package static func accept(_ fd: Int32) -> Int32? {
        let client = Glibc.accept(fd, nil, nil)
        return client >= 0 ? client : nil
    }

    /// Reads what is available, up to `maximum` bytes; empty on EOF or error.
    package static func read(_ fd: Int32, maximum: Int = 65_536) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximum, 0) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    /// Writes all bytes; `false` when the peer is gone. MSG_NOSIGNAL: a closed peer must not SIGPIPE the test process.
    @discardableResult
    package static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Closes a descriptor.
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
