import Foundation
import Glibc

/// A minimal document server for the benchmark on 127.0.0.1 (kernel-chosen port): `200` with the envelope and its
/// ETag, `304` when `If-None-Match` matches, one thread per connection, `Connection: close` like the client expects.
/// Every raw socket call of the benchmark is here.
final class BenchServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let ok: [UInt8]
    private let notModified: [UInt8]
    private let etag: String

    init(body: [UInt8], etag: String) throws {
        self.etag = etag
        ok = Array(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \(etag)\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n").utf8) + body
        notModified = Array("HTTP/1.1 304 Not Modified\r\nETag: \(etag)\r\nConnection: close\r\n\r\n".utf8)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { throw BenchError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
            }
        }
    }

    private func serve(_ fd: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while request.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let head = String(decoding: request, as: UTF8.self).lowercased()
        let reply = head.contains("if-none-match: \(etag.lowercased())") ? notModified : ok
        var offset = 0
        while offset < reply.count {
            let sent = reply[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

/// A setup failure of the benchmark.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
