import Glibc
import RawHTTPClient
import Testing
@testable import HTTPServer

@Suite struct SocketGlibcTests {
    @Test func acceptedSocketsAreNonBlockingWithNoDelay() async throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8, reusePort: false)
        defer { Socket.close(listener) }
        #expect(port > 0)
        let client = try RawClient(port: port)
        var accepted: Int32 = -1
        var peer = HTTPPeerAddress.unspecified
        #expect(await eventually {
            if case .accepted(let fd, let p)? = Socket.accept(listener) {
                accepted = fd
                peer = p
            }
            return accepted >= 0
        })
        defer { Socket.close(accepted) }
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
        #expect(value == 1)
        #expect(fcntl(accepted, F_GETFL) & O_NONBLOCK != 0)
        #expect(peer.host == "127.0.0.1")
        // Nothing to read yet: a non-blocking read says so instead of blocking.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        guard case .wouldBlock = Socket.read(accepted, into: buffer) else {
            Issue.record("expected wouldBlock")
            return
        }
        try client.send("x")
        #expect(await eventually { if case .bytes(1) = Socket.read(accepted, into: buffer) { true } else { false } })
        // Nothing waiting on the listener now.
        #expect(Socket.accept(listener) == nil)
    }

    @Test func theIncomingCPUIsTheSendersOverLoopback() async throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8, reusePort: false, deferAcceptSeconds: nil)
        defer { Socket.close(listener) }
        let client = try RawClient(port: port)
        var accepted: Int32 = -1
        #expect(await eventually {
            if case .accepted(let fd, _)? = Socket.accept(listener) { accepted = fd }
            return accepted >= 0
        })
        defer { Socket.close(accepted) }
        let cores = Int32(System.onlineCores())
        #expect((0..<cores).contains(Socket.currentCPU()))
        #expect(Socket.incomingCPU(-1) == -1)
        // Over loopback the receive path runs on the sending thread's CPU. Sent again until the sender was on
        // the same CPU before and after its send (it may migrate in between).
        var agreed = false
        for _ in 0..<100 where !agreed {
            let before = Socket.currentCPU()
            try client.send("x")
            let after = Socket.currentCPU()
            if before == after {
                #expect(Socket.incomingCPU(accepted) == before)
                agreed = true
            }
        }
        #expect(agreed)
    }

    @Test func listenOnIPv6Loopback() throws {
        let (fd, port) = try Socket.listen(host: "::1", port: 0, backlog: 8, reusePort: false)
        Socket.close(fd)
        #expect(port > 0)
    }

    @Test func portInUseIsAnErrorWithErrno() throws {
        // A listener without SO_REUSEPORT holds its port exclusively.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 1)
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        do {
            let (l, _) = try Socket.listen(host: "127.0.0.1", port: Int(UInt16(bigEndian: bound.sin_port)), backlog: 8, reusePort: true)
            Socket.close(l)
            Issue.record("bind should have failed")
        } catch {
            #expect(error.errno == EADDRINUSE)
        }
    }

    @Test func aSecondListenerWithoutReusePortIsRefusedButWithItIsLetIn() throws {
        // Why the shared listener is the default: without SO_REUSEPORT a second server on the same port
        // (another flagserver with another database) fails to start instead of taking half the traffic.
        let (first, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8, reusePort: false)
        defer { Socket.close(first) }
        #expect(throws: HTTPError.self) { try Socket.listen(host: "127.0.0.1", port: port, backlog: 8, reusePort: false) }
        do {
            _ = try Socket.listen(host: "127.0.0.1", port: port, backlog: 8, reusePort: false)
        } catch {
            #expect(error.errno == EADDRINUSE)
        }
        let (a, shared) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8, reusePort: true)
        defer { Socket.close(a) }
        let (b, again) = try Socket.listen(host: "127.0.0.1", port: shared, backlog: 8, reusePort: true)
        defer { Socket.close(b) }
        #expect(again == shared)
    }

    @Test func aDuplicateDescriptorKeepsTheListenerOpenAfterTheOriginalCloses() throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8, reusePort: false)
        let copy = try Socket.duplicate(listener)
        defer { Socket.close(copy) }
        #expect(copy != listener)
        #expect(fcntl(copy, F_GETFD) & FD_CLOEXEC != 0)
        Socket.close(listener)
        // Still listening through the copy: a client connects and is accepted there.
        let client = try RawClient(port: port)
        _ = client
        var accepted: Int32 = -1
        for _ in 0..<200 where accepted < 0 {
            if case .accepted(let fd, _)? = Socket.accept(copy) { accepted = fd } else { System.sleep(milliseconds: 5) }
        }
        #expect(accepted >= 0)
        if accepted >= 0 { Socket.close(accepted) }
    }

    @Test func durationsInNanoseconds() {
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.seconds(-1).nanoseconds == 0)
    }
}
