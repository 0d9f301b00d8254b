import FlagKit
import Foundation
import Glibc

/// One response as the raw-socket client read it.
package struct RawHTTPResponse: Sendable {
    /// The status code.
    package let status: Int
    /// The header fields in the order received.
    package let headers: [(name: String, value: String)]
    /// The body (empty for HEAD).
    package let body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (fails the test when it is not).
    package func json() throws -> JSONValue {
        do {
            return try JSONParser.parse(body).value
        } catch {
            throw TestFailure("body is not JSON (\(error)): \(text)")
        }
    }

    /// `body.error.code`.
    package func errorCode() throws -> String? {
        try json().objectValue?["error"]?.objectValue?["code"]?.stringValue
    }
}

/// A tiny HTTP/1.1 client over a raw socket: one request per connection (`Connection: close`), reads to EOF.
/// Real bytes on a real socket, so the server's framing, headers and limits are what is tested.
package enum RawHTTP {
    /// The request on a thread of its own, so tests never block Swift's cooperative pool (other suites'
    /// `Task`s, such as HTTPServer's async handlers, run on it in the same process).
    package static func request(port: Int, method: String, path: String, headers: [(String, String)] = [],
                        body: [UInt8]? = nil, timeoutSeconds: Int = 20) async throws -> RawHTTPResponse {
        try await offPool {
            try blockingRequest(port: port, method: method, path: path, headers: headers, body: body, timeoutSeconds: timeoutSeconds)
        }
    }

    /// ``request(port:method:path:headers:body:timeoutSeconds:)`` on the calling thread.
    package static func blockingRequest(port: Int, method: String, path: String, headers: [(String, String)] = [],
                                body: [UInt8]? = nil, timeoutSeconds: Int = 20) throws -> RawHTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let raw = try exchange(port: port, bytes: Array(head.utf8) + (body ?? []), timeoutSeconds: timeoutSeconds)
        return try parse(raw, method: method)
    }

    /// Sends `bytes` and returns everything the server sends until it closes.
    package static func exchange(port: Int, bytes: [UInt8], timeoutSeconds: Int = 20) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect to \(port): errno \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may refuse early (413) and close; read what it said
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received.append(contentsOf: buffer[0..<n])
            } else if n == 0 || errno != EINTR {
                break
            }
        }
        return received
    }

    /// The status line, headers and body of `raw` (the body cut to `Content-Length`; none for HEAD).
    package static func parse(_ raw: [UInt8], method: String) throws -> RawHTTPResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw TestFailure("no complete response head in \(raw.count) bytes: \(String(decoding: raw, as: UTF8.self))")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestFailure("bad status line \(lines[0])") }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(raw[(end + 4)...])
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }),
           method != "HEAD", body.count > length {
            body = Array(body.prefix(length))
        }
        if method == "HEAD" { body = [] }
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }
}

