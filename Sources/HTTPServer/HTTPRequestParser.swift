/// An incremental HTTP/1.1 request parser (RFC 9112). Feed it whatever bytes have arrived; it consumes
/// what it can and says how many bytes it took. Unconsumed bytes must be passed again, followed by new
/// ones. A thrown `HTTPError` is the refusal to send; the stream is not trusted afterwards.
struct HTTPRequestParser {
    /// Size limits (from the configuration).
    struct Limits {
        var maxRequestLineBytes = 8 * 1024
        var maxHeaderBytes = 16 * 1024
        var maxHeaderCount = 100
        var maxBodyBytes = 1024 * 1024
    }

    /// What one call produced.
    enum Event {
        /// Nothing complete yet.
        case needMore
        /// The head of a request with a body is complete (`pendingHead`); nothing of the body has been read.
        /// The caller decides on it (refuse, reserve memory) before passing more bytes. `continueNeeded`: it
        /// has `Expect: 100-continue` and none of the body has arrived yet.
        case head(continueNeeded: Bool)
        /// A complete request.
        case request(HTTPRequest)
    }

    enum State {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
    }

    let limits: Limits
    var state: State = .head
    /// Bytes of the current head already scanned for its end, so byte-by-byte arrival stays linear.
    var scanned = 0
    /// Complete lines in those bytes (the request line and the field lines so far).
    var scannedLines = 0
    /// The request whose head is parsed, while its body arrives.
    var pending: HTTPRequest?
    var expectsContinue = false
    var trailerBytes = 0
    /// The pending request's body limit: `limits.maxBodyBytes`, or a path's smaller one (`lowerBodyLimit`).
    var bodyLimit: Int
    /// The connection's last valid `Host`.
    var hostCache = HostCache()
    /// The connection's last request-target and its strings.
    var targetCache = TargetCache()

    init(limits: Limits) {
        self.limits = limits
        bodyLimit = limits.maxBodyBytes
    }

    /// The request whose head was just parsed and whose body is to come (after `.head`), without its body.
    var pendingHead: HTTPRequest? { pending }

    /// The body bytes the pending request will need: its `Content-Length`, or its body limit when chunked.
    var pendingBodyBytes: Int {
        switch state {
        case .body(let remaining): remaining
        case .head: 0
        default: bodyLimit
        }
    }

    /// Lowers the pending request's body limit to `bytes` (its path's own limit), right after its head; false
    /// when its `Content-Length` is already past it. A chunked body is held to it as its chunks arrive.
    mutating func lowerBodyLimit(to bytes: Int) -> Bool {
        guard bytes < bodyLimit else { return true }
        if case .body(let remaining) = state, remaining > bytes { return false }
        bodyLimit = bytes
        return true
    }

    /// Whether nothing of a request has been consumed (bytes of a partial head may still be waiting in the caller's buffer).
    var isBetweenRequests: Bool {
        if case .head = state { return true }
        return false
    }

    /// Consumes from `buffer`; returns how many bytes were used and what was completed.
    mutating func parse(_ buffer: UnsafeRawBufferPointer) throws(HTTPError) -> (consumed: Int, event: Event) {
        switch state {
        case .head:
            return try parseHead(buffer)
        case .body(let remaining):
            let n = min(remaining, buffer.count)
            pending?.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if n == remaining { return (n, finish()) }
            state = .body(remaining: remaining - n)
            return (n, .needMore)
        default:
            return try parseChunked(buffer)
        }
    }

    /// Hands out the finished request and resets for the next one.
    mutating func finish() -> Event {
        state = .head
        scanned = 0
        scannedLines = 0
        expectsContinue = false
        trailerBytes = 0
        bodyLimit = limits.maxBodyBytes
        guard let request = pending else { return .needMore }
        pending = nil
        return .request(request)
    }

    mutating func parseHead(_ buffer: UnsafeRawBufferPointer) throws(HTTPError) -> (consumed: Int, event: Event) {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        var start = 0
        while start + 1 < buffer.count, buffer[start] == 0x0D, buffer[start + 1] == 0x0A { start += 2 }
        if start > 0 {
            scanned = 0
            scannedLines = 0
            let rest = UnsafeRawBufferPointer(rebasing: buffer[start...])
            let (used, event) = try parseHead(rest)
            return (start + used, event)
        }
        if buffer.count == 1 && buffer[0] == 0x0D { return (0, .needMore) }
        guard let end = try findHeadEnd(buffer) else {
            // Only on an incomplete head, so a whole request pays nothing: bytes that cannot begin a method
            // (a TLS ClientHello's 0x16 0x03 on the plain port, binary junk) are refused now, not after the
            // header timeout. A method is 1*tchar followed by SP (RFC 9112 §3, RFC 9110 §9.1).
            try HTTPRequestParser.checkMethodPrefix(buffer)
            let maxHead = limits.maxRequestLineBytes + limits.maxHeaderBytes
            if buffer.count > maxHead { throw HTTPRequestParser.tooLarge(buffer, limits) }
            if buffer.index(of: 0x0A) == nil && buffer.count > limits.maxRequestLineBytes {
                throw HTTPError(.uriTooLong, code: "request_line_too_long", message: "request line too long", closesConnection: true)
            }
            return (0, .needMore)
        }
        let fieldLines = scannedLines - 1
        scanned = 0
        scannedLines = 0
        var facts = HeadFacts()
        var request = try HTTPRequestParser.parseHeadBlock(
            UnsafeRawBufferPointer(rebasing: buffer[0..<end]), fieldLines: fieldLines, limits, hosts: &hostCache, targets: &targetCache,
            facts: &facts)
        let framing = try HTTPRequestParser.framing(of: &request, facts, limits)
        switch framing.body {
        case .none:
            // Most requests: handed out directly, never stored in `pending`.
            return (end + 4, .request(consume request))
        case .length(let n):
            // Reserve at most 64 KiB up front: a client announcing a large body and then stalling must not
            // make every connection hold `maxBodyBytes`.
            request.body.reserveCapacity(min(n, 64 * 1024))
            state = .body(remaining: n)
        case .chunked:
            state = .chunkSize
        }
        pending = request
        expectsContinue = framing.expectsContinue
        return (end + 4, .head(continueNeeded: expectsContinue && end + 4 == buffer.count))
    }

    /// Index of the CR of the blank line ending the head, or nil. Bare CR or LF is refused (RFC 9112 §2.2).
    /// Goes line by line with `memchr`: each LF must follow a CR, and no other CR may appear in the line.
    /// `scanned` is where the first incomplete line starts.
    /// `scannedLines` counts the lines before the blank one (so the head's field lines are known before they are parsed).
    mutating func findHeadEnd(_ buffer: UnsafeRawBufferPointer) throws(HTTPError) -> Int? {
        var start = scanned
        var lines = scannedLines
        defer { scannedLines = lines }
        let count = buffer.count
        while let lf = buffer.index(of: 0x0A, from: start) {
            // The first CR of the line must be the one right before the LF; the earlier fault is reported.
            guard let cr = buffer.index(of: 0x0D, in: start..<lf) else {
                throw HTTPError.malformed("bare_lf", "line ends with LF without CR")
            }
            if cr != lf - 1 { throw HTTPError.malformed("bare_cr", "CR not followed by LF") }
            // An empty line after at least one line ends the head (leading empty lines are skipped earlier).
            if lf - 1 == start && start >= 2 { return start - 2 }
            start = lf + 1
            lines += 1
        }
        // The unfinished line may end with a CR whose LF has not arrived; a CR anywhere before that is bare.
        if let cr = buffer.index(of: 0x0D, in: start..<count), cr < count - 1 {
            throw HTTPError.malformed("bare_cr", "CR not followed by LF")
        }
        scanned = start
        return nil
    }

    /// Refuses a partial request line whose first bytes are not `1*tchar` up to the first SP.
    static func checkMethodPrefix(_ buffer: UnsafeRawBufferPointer) throws(HTTPError) {
        var i = 0
        while i < buffer.count && buffer[i] != 0x20 {
            let b = buffer[i]
            // A lone CR may be the start of an empty line before the request (RFC 9112 §2.2).
            if !isToken(b) && !(i == 0 && b == 0x0D && buffer.count == 1) {
                throw HTTPError.malformed("malformed_request_line", "byte 0x\(String(b, radix: 16)) cannot start a request line")
            }
            i += 1
        }
        if i == 0 && buffer.count > 0 && buffer[0] == 0x20 { throw HTTPError.malformed("malformed_request_line", "no method") }
    }

        static func tooLarge(_ buffer: UnsafeRawBufferPointer, _ limits: Limits) -> HTTPError {
        if let lf = buffer.index(of: 0x0A), lf <= limits.maxRequestLineBytes {
            return HTTPError(.requestHeaderFieldsTooLarge, code: "headers_too_large", message: "header section too large", closesConnection: true)
        }
        return HTTPError(.uriTooLong, code: "request_line_too_long", message: "request line too long", closesConnection: true)
    }
}
