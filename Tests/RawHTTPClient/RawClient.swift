import Glibc

/// A blocking HTTP/1.1 client over a real TCP socket to 127.0.0.1, shared by the test targets of HTTPServer
/// and FlagOFREP: sends exact bytes (malformed ones too) and reads responses framed by `Content-Length`.
/// Used by one thread at a time (handed to another and back), hence `@unchecked Sendable`.
package final class RawClient: @unchecked Sendable {
    /// A socket call failed, the stream ended early, or the bytes were not a response.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with errno where there is one.
        package let description: String
    }

    /// One response as read.
    package struct Response: Sendable {
        /// The status code.
        package var status: Int
        /// Header fields in order, values without surrounding spaces.
        package var headers: [(String, String)]
        /// The body (empty for HEAD, 1xx, 204 and 304).
        package var body: [UInt8]
        /// The first field named `name`, compared case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The socket.
    package let fd: Int32
    /// Bytes received and not read yet.
    package var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeoutSeconds`.
    package init(port: Int, timeoutSeconds: Int = 10) throws {
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

    /// Sends one request with a JSON body and reads its response.
    package func request(_ method: String, _ path: String, body: String = "", headers: [(String, String)] = []) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try send(head + "\r\n" + body)
        guard let response = try readResponse() else { throw Failure(description: "connection closed before a response") }
        return response
    }

    /// Sends `text` as UTF-8, all of it.
    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `bytes`, all of them.
    package func send(_ bytes: [UInt8]) throws {
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

    /// Reads more bytes; false at end of stream.
    package func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return false }
        guard n > 0 else { throw Failure(description: "recv: errno \(errno) (timeout?)") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response; nil when the server closed the connection cleanly before one began.
    package func readResponse(head: Bool = false) throws -> Response? {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line \(statusLine)") }
                let headers = lines.map { line -> (String, String) in
                    let colon = line.firstIndex(of: ":") ?? line.endIndex
                    return (String(line[..<colon]), colon < line.endIndex ? Self.trimmingSpaces(line[line.index(after: colon)...]) : "")
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
    package func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server has closed the connection (reads to end, discarding).
    package func isClosedByServer() -> Bool {
        (try? readToEnd()) != nil
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] && Array(buffer[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }

    static func trimmingSpaces(_ text: Substring) -> String {
        var s = text
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
