import FlagOFREP
import Glibc
import HTTPServer

/// A blocking HTTP/1.1 client over a real TCP socket to 127.0.0.1, for the OFREP route tests:
/// sends exact bytes and reads responses framed by `Content-Length`.
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

    /// Sends one request and reads its response.
    func request(_ method: String, _ path: String, body: String = "", headers: [(String, String)] = []) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try send(Array((head + "\r\n" + body).utf8))
        guard let response = try readResponse() else { throw Failure(description: "connection closed before a response") }
        return response
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            offset += n
        }
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return false }
        guard n > 0 else { throw Failure(description: "recv: errno \(errno) (timeout?)") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readResponse() throws -> Response? {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line \(statusLine)") }
                let headers = lines.map { line -> (String, String) in
                    let colon = line.firstIndex(of: ":") ?? line.endIndex
                    let value = colon < line.endIndex ? String(line[line.index(after: colon)...]) : ""
                    return (String(line[..<colon]), String(value.drop { $0 == " " }))
                }
                let length = status < 200 || status == 204 || status == 304
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
                throw Failure(description: "eof inside head")
            }
        }
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] && Array(buffer[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}

/// Starts a server on 127.0.0.1 port 0 with ONLY the OFREP routes, runs `body`, and always shuts it down.
func withOFREPServer<T>(_ configuration: OFREPRouteConfiguration, _ body: (Int) throws -> T) throws -> T {
    var builder = HTTPRouter.Builder()
    OFREPRoutes.register(in: &builder, configuration: configuration)
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2),
                            handler: try builder.build())
    let port = try server.start()
    defer { server.shutdown(gracePeriod: .seconds(2)) }
    return try body(port)
}
