import Foundation

/// A tiny HTTP peer on 127.0.0.1 (kernel-chosen port) that misbehaves on purpose, one thread per connection.
///
/// Reused by every FlagClient test that needs a real server doing something a real server might do wrong.
package final class FaultServer: @unchecked Sendable {
    /// What the server does with each connection after reading the request.
    package enum Behavior: Sendable {
        /// Writes these bytes, then closes (a normal, an error, a garbage or a truncated reply).
        case reply([UInt8])
        /// Writes these bytes as soon as the connection is accepted, without reading a request, then closes.
        case greet([UInt8])
        /// Never answers; holds the connection open until the server stops.
        case neverAnswer
        /// Writes `head` at once, then `body` in `chunk`-byte pieces every `interval`, then closes.
        case drip(head: [UInt8], body: [UInt8], chunk: Int, interval: Duration)
        /// Anything else: the handler gets the connection's descriptor and the request bytes read so far.
        case custom(@Sendable (_ fd: Int32, _ request: [UInt8]) -> Void)
    }

    /// The port the server listens on.
    package let port: UInt16
    private let listener: Int32
    private let behavior: Behavior
    private let lock = NSLock()
    private var stopped = false
    private var received: [[UInt8]] = []
    private var accepted = 0
    private let threads = DispatchGroup()

    /// Starts listening and accepting at once. Call ``stop()`` when done: the threads keep the server alive.
    package init(_ behavior: Behavior) throws {
        (listener, port) = try Socket.listenOnLoopback()
        self.behavior = behavior
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            threads.leave()
        }
    }

    /// A URL on this server.
    package func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Every request received so far (head and body as read), in order of arrival.
    package var requests: [String] {
        lock.withLock { received.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// How many connections were accepted.
    package var acceptedConnections: Int { lock.withLock { accepted } }

    /// Stops accepting, releases held connections and waits for every connection thread.
    package func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        threads.wait()
        Socket.close(listener)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            guard Socket.waitReadable(listener, milliseconds: 20), let client = Socket.accept(listener) else { continue }
            lock.withLock { accepted += 1 }
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(client)
                Socket.close(client)
                threads.leave()
            }
        }
    }

    private func serve(_ fd: Int32) {
        if case .greet(let bytes) = behavior {
            Socket.write(fd, bytes)
            return
        }
        let request = readRequest(fd)
        lock.withLock { received.append(request) }
        switch behavior {
        case .reply(let bytes):
            Socket.write(fd, bytes)
        case .greet:
            break
        case .neverAnswer:
            while !isStopped { _ = Socket.waitReadable(fd, milliseconds: 20) }
        case .drip(let head, let body, let chunk, let interval):
            guard Socket.write(fd, head) else { return }
            var offset = 0
            while offset < body.count, !isStopped {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds)
                             + Double(interval.components.attoseconds) / 1e18)
                let end = min(body.count, offset + max(1, chunk))
                guard Socket.write(fd, Array(body[offset..<end])) else { return }
                offset = end
            }
        case .custom(let handler):
            handler(fd, request)
        }
    }

    /// Reads the request head and as much body as `Content-Length` announces (up to 5 s of waiting).
    private func readRequest(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var expected: Int?
        for _ in 0..<250 where !isStopped {
            if let expected, bytes.count >= expected { break }
            guard Socket.waitReadable(fd, milliseconds: 20) else { continue }
            let chunk = Socket.read(fd)
            if chunk.isEmpty { break }
            bytes += chunk
            if expected == nil, let end = bytes.firstRange(of: separator)?.upperBound {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end + length
            }
        }
        return bytes
    }

    /// A complete HTTP/1.1 response with `Content-Length` and `Connection: close`.
    package static func response(status: Int, reason: String = "X", headers: [(String, String)] = [], body: String = "") -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }
}
