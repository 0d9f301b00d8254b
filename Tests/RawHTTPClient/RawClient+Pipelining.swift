import Glibc

extension RawClient {
    /// Reads the answers to pipelined requests until `count` arrived, or the connection ends or stalls past the
    /// read timeout: how many came in a row for which `check(index, head, body)` holds (the status line and
    /// fields as text, the body as bytes). Parses in place, without a copy per answer, so tens of thousands of
    /// answers cost the test client little.
    package func readPipelined(count: Int, check: (Int, String, ArraySlice<UInt8>) -> Bool) throws -> Int {
        var offset = 0, answered = 0
        let separator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while answered < count {
            if let end = buffer[offset...].firstRange(of: separator)?.lowerBound {
                let head = String(decoding: buffer[offset..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
                if buffer.count >= end + 4 + length {
                    guard check(answered, head, buffer[(end + 4)..<(end + 4 + length)]) else { break }
                    answered += 1
                    offset = end + 4 + length
                    continue
                }
            }
            if offset > 1 << 20 {
                buffer.removeFirst(offset)
                offset = 0
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            buffer.append(contentsOf: chunk[0..<n])
        }
        buffer.removeFirst(min(offset, buffer.count))
        return answered
    }
}
