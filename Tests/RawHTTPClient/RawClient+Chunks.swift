extension RawClient {
    /// Connects, sends `GET path` with `extraHeaders` (complete lines, each ending in CRLF) and reads the head
    /// of a streaming response, leaving its body unread: the client and the head (nil if the server closed).
    package static func openStream(port: Int, path: String, extraHeaders: String = "") throws -> (RawClient, Response?) {
        let client = try RawClient(port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\(extraHeaders)\r\n")
        return (client, try client.readResponse(head: true))
    }

    /// Reads one chunk of a chunked body (RFC 9112 §7.1) after `readResponse(head:)` returned its head:
    /// the chunk's data, `[]` for the last chunk (whose empty trailer section is consumed too), nil when
    /// the server closed the connection before a chunk began. Chunk extensions are not expected.
    package func readChunk() throws -> [UInt8]? {
        while true {
            if let lineEnd = firstCRLF(from: 0) {
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText, radix: 16) else { throw Failure(description: "bad chunk size line '\(sizeText)'") }
                let end = lineEnd + 2 + size + 2
                while buffer.count < end {
                    guard try fill() else { throw Failure(description: "eof inside a chunk") }
                }
                guard buffer[end - 2] == 13 && buffer[end - 1] == 10 else { throw Failure(description: "chunk data not followed by CRLF") }
                let data = Array(buffer[(lineEnd + 2)..<(lineEnd + 2 + size)])
                buffer.removeFirst(end)
                return data
            }
            guard try fill() else {
                if buffer.isEmpty { return nil }
                throw Failure(description: "eof inside a chunk size line")
            }
        }
    }

    private func firstCRLF(from start: Int) -> Int? {
        var i = start
        while i + 1 < buffer.count {
            if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }
}
