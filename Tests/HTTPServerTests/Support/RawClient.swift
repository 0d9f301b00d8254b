import Glibc
@testable import HTTPServer

/// A blocking TCP client for tests: sends exact bytes, reads responses framed by Content-Length.
final class RawClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    var buffer: [UInt8] = []

    init(port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect: \(errno)")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            offset += n
        }
    }

    /// Reads more bytes; false at end of stream.
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return false }
        guard n > 0 else { throw Failure(description: "recv: errno \(errno) (timeout?)") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response; nil when the server closed the connection cleanly before one began.
    func readResponse(head: Bool = false) throws -> Response? {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line \(statusLine)") }
                let headers = lines.map { line -> (String, String) in
                    let colon = line.firstIndex(of: ":") ?? line.endIndex
                    return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: " "))
                }
                let length = head || status < 200 || status == 204 || status == 304
                    ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    guard try fill() else { throw Failure(description: "eof inside body") }
                }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard try fill() else {
                if buffer.isEmpty { return nil }
                throw Failure(description: "eof inside head: \(String(decoding: buffer, as: UTF8.self))")
            }
        }
    }

    /// Reads until the server closes; returns everything unread.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server has closed the connection (reads to end, discarding).
    func isClosedByServer() -> Bool {
        (try? readToEnd()) != nil
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] && Array(buffer[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

/// Starts a server on 127.0.0.1 port 0, runs `body`, and always shuts it down.
func withServer<T>(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (inout HTTPRouter.Builder) -> Void,
    _ body: (HTTPServer, Int) async throws -> T
) async throws -> T {
    var builder = HTTPRouter.Builder()
    routes(&builder)
    var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2)
    configure(&config)
    let server = HTTPServer(configuration: config, handler: try builder.build())
    let port = try server.start()
    do {
        let result = try await body(server, port)
        server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
