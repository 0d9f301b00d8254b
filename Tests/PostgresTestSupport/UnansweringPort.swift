import Foundation
import Glibc

/// A TCP port on 127.0.0.1 where connections are never answered, as when a database machine is gone and its packets
/// are dropped: a listening socket whose accept queue is full (backlog 0, filled by connections of its own and never
/// accepted), so the kernel drops every further SYN and a client's connect waits for its own timeout
/// (libpq: `connect_timeout`) instead of being refused at once.
package final class UnansweringPort: @unchecked Sendable {
    // @unchecked: the descriptors are written in init and closed once in `close()`.

    /// The port.
    package let port: Int
    private var descriptors: [Int32] = []

    /// Opens the listener and fills its queue.
    package init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw PostgresTestCluster.SetupError(description: "socket: errno \(errno)") }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, generic, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw PostgresTestCluster.SetupError(description: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Linux queues backlog + 1 connections; a few more SYNs that are dropped are harmless (non-blocking connects).
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        // Let the handshakes that fit complete, so the queue is full before anyone else connects.
        usleep(100_000)
    }

    deinit { close() }

    /// Closes the listener and its queued connections.
    package func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
        descriptors = []
    }
}
