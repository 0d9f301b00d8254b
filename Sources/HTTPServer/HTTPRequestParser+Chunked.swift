extension HTTPRequestParser {
    /// The chunked transfer coding (RFC 9112 §7.1): hex size, extensions (skipped), data, CRLF; a zero
    /// chunk, then trailer fields and an empty line.
    mutating func parseChunked(_ buffer: UnsafeRawBufferPointer) throws(HTTPError) -> (consumed: Int, event: Event) {
        switch state {
        case .chunkSize:
            guard let lineEnd = try HTTPRequestParser.lineEnd(buffer, limit: limits.maxRequestLineBytes) else { return (0, .needMore) }
            let size = try HTTPRequestParser.chunkSize(UnsafeRawBufferPointer(rebasing: buffer[0..<lineEnd]))
            if size > bodyLimit - (pending?.body.count ?? 0) {
                throw HTTPError(.contentTooLarge, code: "body_too_large", message: "body larger than \(bodyLimit) bytes", closesConnection: true)
            }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return (lineEnd + 2, .needMore)
        case .chunkData(let remaining):
            let n = min(remaining, buffer.count)
            pending?.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            state = n == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            return (n, .needMore)
        case .chunkDataEnd:
            guard buffer.count >= 2 else {
                if buffer.count == 1 && buffer[0] != 0x0D { throw HTTPError.malformed("malformed_chunk", "chunk data not followed by CRLF") }
                return (0, .needMore)
            }
            guard buffer[0] == 0x0D, buffer[1] == 0x0A else { throw HTTPError.malformed("malformed_chunk", "chunk data not followed by CRLF") }
            state = .chunkSize
            return (2, .needMore)
        case .trailers:
            let room = limits.maxHeaderBytes - trailerBytes
            guard let lineEnd = try HTTPRequestParser.lineEnd(buffer, limit: room) else { return (0, .needMore) }
            if lineEnd == 0 { return (2, finish()) }
            let field = try HTTPRequestParser.parseField(UnsafeRawBufferPointer(rebasing: buffer[0..<lineEnd]), hosts: &hostCache)
            trailerBytes += lineEnd + 2
            pending?.trailers.appendParsed(field)
            if (pending?.trailers.count ?? 0) > limits.maxHeaderCount {
                throw HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers", message: "too many trailer fields", closesConnection: true)
            }
            return (lineEnd + 2, .needMore)
        default:
            return (0, .needMore)
        }
    }

    /// Index of the CR of the first CRLF, nil if not there yet; refuses bare LF/CR and lines longer than `limit`.
    static func lineEnd(_ buffer: UnsafeRawBufferPointer, limit: Int) throws(HTTPError) -> Int? {
        guard let lf = buffer.firstIndex(of: 0x0A) else {
            if buffer.count > limit + 1 {
                throw HTTPError(.requestHeaderFieldsTooLarge, code: "line_too_long", message: "chunk or trailer line too long", closesConnection: true)
            }
            if let cr = buffer.firstIndex(of: 0x0D), cr + 1 < buffer.count { throw HTTPError.malformed("bare_cr", "CR not followed by LF") }
            return nil
        }
        guard lf > 0, buffer[lf - 1] == 0x0D else { throw HTTPError.malformed("bare_lf", "line ends with LF without CR") }
        if let cr = buffer.firstIndex(of: 0x0D), cr != lf - 1 { throw HTTPError.malformed("bare_cr", "CR not followed by LF") }
        if lf - 1 > limit {
            throw HTTPError(.requestHeaderFieldsTooLarge, code: "line_too_long", message: "chunk or trailer line too long", closesConnection: true)
        }
        return lf - 1
    }

    /// chunk-size [ chunk-ext ]: 1*HEXDIG, then optional `BWS ; name [= value]` extensions, which are ignored.
    static func chunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPError) -> Int {
        var size = 0, i = 0, significant = 0
        while i < line.count, let digit = HTTPRequest.hexValue(line[i]) {
            // 1*HEXDIG: leading zeros are valid (0000000000000005 is 5), so only significant digits can overflow.
            if significant > 0 || digit != 0 { significant += 1 }
            guard significant < 16 else {
                throw HTTPError(.contentTooLarge, code: "body_too_large", message: "chunk size too large", closesConnection: true)
            }
            size = size << 4 | Int(digit)
            i += 1
        }
        guard i > 0 else { throw HTTPError.malformed("malformed_chunk", "chunk size is not hexadecimal") }
        while i < line.count, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        if i < line.count {
            guard line[i] == 0x3B else { throw HTTPError.malformed("malformed_chunk", "junk after chunk size") }
            for j in i..<line.count {
                let b = line[j]
                if (b < 0x20 && b != 0x09) || b == 0x7F { throw HTTPError.malformed("malformed_chunk", "control character in chunk extension") }
            }
        }
        return size
    }
}
