import Glibc

extension HTTPRequestParser {
    /// How the body is delimited (RFC 9112 §6.3).
    enum BodyFraming {
        case none
        case length(Int)
        case chunked
    }

    /// tchar (RFC 9110 §5.6.2: ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``) as two 64-bit masks for bytes 0-63
    /// and 64-127: a test of one bit, with no lazily initialized table to reach first (`swift_once`) and no
    /// bounds check, for every byte of every name. `HTTPRequestParserTests` checks them against the list.
    static let tokenMaskLow: UInt64 = 0x03FF_6CFA_0000_0000
    static let tokenMaskHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    @inline(__always)
    static func isToken(_ b: UInt8) -> Bool {
        b < 64 ? (tokenMaskLow >> UInt64(b)) & 1 == 1 : b < 128 && (tokenMaskHigh >> UInt64(b - 64)) & 1 == 1
    }

    /// What the field lines said about the request's framing, noted while they were checked.
    struct HeadFacts {
        /// `Host` fields.
        var hosts = 0
        /// Whether a `Content-Length`, `Transfer-Encoding` or `Expect` field is present (then `framing` reads them).
        var framingFields = false
    }

    /// Parses the request line and field lines of `head` (without the final CRLFCRLF); `fieldLines` is how many
    /// field lines it has (`findHeadEnd` counted them). The fields are checked here and kept as bytes
    /// (`HTTPFieldBlock`): nothing is decoded until a handler asks for a field.
    static func parseHeadBlock(_ head: UnsafeRawBufferPointer, fieldLines: Int, _ limits: Limits, hosts: inout HostCache,
                               targets: inout TargetCache, facts: inout HeadFacts) throws(HTTPError) -> HTTPRequest {
        let lineEnd = head.index(of: 0x0D) ?? head.count
        if lineEnd > limits.maxRequestLineBytes {
            throw HTTPError(.uriTooLong, code: "request_line_too_long", message: "request line too long", closesConnection: true)
        }
        if head.count - lineEnd > limits.maxHeaderBytes + 2 {
            throw HTTPError(.requestHeaderFieldsTooLarge, code: "headers_too_large", message: "header section too large", closesConnection: true)
        }
        let line = UnsafeRawBufferPointer(rebasing: head[0..<lineEnd])
        // request-line = method SP request-target SP HTTP-version (RFC 9112 §3)
        guard let sp1 = line.index(of: 0x20), sp1 > 0 else { throw HTTPError.malformed("malformed_request_line", "no method") }
        for i in 0..<sp1 where !isToken(line[i]) { throw HTTPError.malformed("malformed_request_line", "bad method") }
        let afterMethod = sp1 + 1
        guard let sp2 = line.index(of: 0x20, from: afterMethod) else {
            throw HTTPError.malformed("malformed_request_line", "no version")
        }
        guard sp2 > afterMethod else { throw HTTPError.malformed("malformed_request_line", "empty target") }
        // Visible ASCII only (RFC 3986 characters); anything else, including obs-text, is refused.
        guard let questionMark = firstQuestionMark(visibleASCII: UnsafeRawBufferPointer(rebasing: line[afterMethod..<sp2])) else {
            throw HTTPError.malformed("malformed_request_line", "bad character in target")
        }
        let queryStart = questionMark < 0 ? -1 : afterMethod + questionMark
        let version = try parseVersion(UnsafeRawBufferPointer(rebasing: line[(sp2 + 1)...]))
        let method = HTTPMethod(bytes: UnsafeRawBufferPointer(rebasing: line[0..<sp1]))
        let targetBytes = UnsafeRawBufferPointer(rebasing: line[afterMethod..<sp2])
        let target: String, path: String, query: String?
        if let cached = targets.strings(for: targetBytes) {
            (target, path, query) = cached
        } else if targetBytes[0] == 0x2F {
            target = String(decoding: targetBytes, as: UTF8.self)
            if queryStart < 0 {
                path = target
                query = nil
            } else {
                path = String(decoding: UnsafeRawBufferPointer(rebasing: line[afterMethod..<queryStart]), as: UTF8.self)
                query = String(decoding: UnsafeRawBufferPointer(rebasing: line[(queryStart + 1)..<sp2]), as: UTF8.self)
            }
            targets.remember(targetBytes, target: target, path: path, query: query)
        } else if targetBytes.count == 1 && targetBytes[0] == 0x2A {
            // asterisk-form is only for OPTIONS (RFC 9112 §3.2.4)
            guard method == .OPTIONS else { throw HTTPError.malformed("malformed_request_line", "* target without OPTIONS") }
            (target, path, query) = ("*", "*", nil)
        } else if method == .CONNECT {
            throw HTTPError(.notImplemented, code: "not_implemented", message: "CONNECT is not supported", closesConnection: true)
        } else {
            target = String(decoding: targetBytes, as: UTF8.self)
            guard target.hasPrefix("http://") || target.hasPrefix("https://") else {
                throw HTTPError.malformed("malformed_request_line", "unsupported request-target form")
            }
            (path, query) = HTTPRequest.split(target: target)
        }
        let fieldsStart = min(lineEnd + 2, head.count)
        let fieldBytes = UnsafeRawBufferPointer(rebasing: head[fieldsStart...])
        // Room for one field past the limit: that one is refused below, after the ones before it were checked.
        let block = HTTPFieldBlock.make(capacity: max(0, min(fieldLines, limits.maxHeaderCount + 1)), copying: fieldBytes)
        var i = 0
        while i < fieldBytes.count {
            let end = fieldBytes.index(of: 0x0D, from: i) ?? fieldBytes.count
            let field = try checkField(UnsafeRawBufferPointer(rebasing: fieldBytes[i..<end]), hosts: &hosts)
            if block.count == block.fieldCapacity {
                throw HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers", message: "more than \(limits.maxHeaderCount) header fields", closesConnection: true)
            }
            block.append(nameStart: i, nameEnd: i + field.colon, valueStart: i + field.valueStart, valueEnd: i + field.valueEnd)
            if block.count > limits.maxHeaderCount {
                throw HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers", message: "more than \(limits.maxHeaderCount) header fields", closesConnection: true)
            }
            switch field.name {
            case .host: facts.hosts += 1
            case .framing: facts.framingFields = true
            case .other: break
            }
            i = end + 2
        }
        return HTTPRequest(method: method, target: target, path: path, query: query, version: version,
                           headers: HTTPHeaders(block: block))
    }

    /// `HTTP/1.x`; other majors get 505, anything not shaped like a version gets 400 (RFC 9112 §2.3).
    static func parseVersion(_ v: UnsafeRawBufferPointer) throws(HTTPError) -> HTTPVersion {
        guard v.count == 8, v[0] == 0x48, v[1] == 0x54, v[2] == 0x54, v[3] == 0x50, v[4] == 0x2F, v[6] == 0x2E,
            (0x30...0x39).contains(v[5]), (0x30...0x39).contains(v[7])
        else { throw HTTPError.malformed("malformed_request_line", "bad HTTP version") }
        let major = Int(v[5] - 0x30), minor = Int(v[7] - 0x30)
        guard major == 1 else {
            throw HTTPError(.httpVersionNotSupported, code: "version_not_supported", message: "only HTTP/1.0 and HTTP/1.1", closesConnection: true)
        }
        return HTTPVersion(major: 1, minor: minor)
    }

    /// Which of the names the parser itself needs a field has.
    enum KnownName {
        case host
        /// `Content-Length`, `Transfer-Encoding`, `Expect`.
        case framing
        case other
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5). No whitespace before the colon
    /// (§5.1: must be refused), no obs-fold (§5.2), no CTL in the value except HTAB. Returns where the colon
    /// and the trimmed value are, and whether the name is one the parser needs.
    static func checkField(_ line: UnsafeRawBufferPointer, hosts: inout HostCache) throws(HTTPError)
        -> (colon: Int, valueStart: Int, valueEnd: Int, name: KnownName)
    {
        guard let colon = line.index(of: 0x3A), colon > 0 else {
            if let f = line.first, f == 0x20 || f == 0x09 { throw HTTPError.malformed("obsolete_line_folding", "obs-fold is not accepted") }
            throw HTTPError.malformed("malformed_header", "header line without name and colon")
        }
        for i in 0..<colon where !isToken(line[i]) {
            if line[i] == 0x20 || line[i] == 0x09 {
                throw HTTPError.malformed(i == 0 ? "obsolete_line_folding" : "malformed_header", "whitespace in or after field name")
            }
            throw HTTPError.malformed("malformed_header", "bad character in field name")
        }
        var s = colon + 1, e = line.count
        while s < e, line[s] == 0x20 || line[s] == 0x09 { s += 1 }
        while e > s, line[e - 1] == 0x20 || line[e - 1] == 0x09 { e -= 1 }
        if !isFieldValue(UnsafeRawBufferPointer(rebasing: line[s..<e])) {
            throw HTTPError.malformed("malformed_header", "control character in field value")
        }
        let name = UnsafeRawBufferPointer(rebasing: line[0..<colon])
        var known = KnownName.other
        switch colon {
        case 4:
            // Host, in any case: checked here on the raw bytes, while they are in cache and before any decoding.
            if HTTPHeaders.equalsIgnoringCase(name, "host") {
                guard hosts.isValid(UnsafeRawBufferPointer(rebasing: line[s..<e])) else {
                    throw HTTPError.malformed("invalid_host", "Host is not uri-host [ \":\" port ]")
                }
                known = .host
            }
        case 6: if HTTPHeaders.equalsIgnoringCase(name, "expect") { known = .framing }
        case 14: if HTTPHeaders.equalsIgnoringCase(name, "content-length") { known = .framing }
        case 17: if HTTPHeaders.equalsIgnoringCase(name, "transfer-encoding") { known = .framing }
        default: break
        }
        return (colon, s, e, known)
    }

    /// One field line as strings (trailer fields, which are few and rare).
    static func parseField(_ line: UnsafeRawBufferPointer, hosts: inout HostCache) throws(HTTPError) -> HTTPHeaders.Field {
        let field = try checkField(line, hosts: &hosts)
        let name = UnsafeRawBufferPointer(rebasing: line[0..<field.colon])
        return HTTPHeaders.Field(
            name: commonFieldName(name) ?? String(decoding: name, as: UTF8.self),
            value: String(decoding: UnsafeRawBufferPointer(rebasing: line[field.valueStart..<field.valueEnd]), as: UTF8.self))
    }

    /// The literal for a field name that clients send on nearly every request (curl, wrk, URLSession,
    /// browsers) when it is spelled exactly so, or nil. A literal costs nothing to make or free; decoding
    /// each name into a new string was about a tenth of parsing a request.
    static func commonFieldName(_ bytes: UnsafeRawBufferPointer) -> String? {
        @inline(__always) func matches(_ name: StaticString) -> Bool {
            guard let base = bytes.baseAddress else { return false }
            return memcmp(base, name.utf8Start, bytes.count) == 0
        }
        switch bytes.count {
        case 4: if matches("Host") { return "Host" }
        case 6:
            if matches("Accept") { return "Accept" }
            if matches("Expect") { return "Expect" }
        case 10:
            if matches("Connection") { return "Connection" }
            if matches("User-Agent") { return "User-Agent" }
        case 12: if matches("Content-Type") { return "Content-Type" }
        case 13:
            if matches("If-None-Match") { return "If-None-Match" }
            if matches("Authorization") { return "Authorization" }
        case 14: if matches("Content-Length") { return "Content-Length" }
        case 15:
            if matches("Accept-Encoding") { return "Accept-Encoding" }
            if matches("Accept-Language") { return "Accept-Language" }
        default: break
        }
        return nil
    }

    /// Host, Content-Length, Transfer-Encoding and Expect checks (RFC 9112 §3.2, §6.1, §6.3; RFC 9110 §10.1.1).
    /// `facts` are what the field lines' check noted: the number of `Host` fields, and whether any framing field
    /// is present at all (a GET has none: then nothing is looked up).
    static func framing(of request: inout HTTPRequest, _ facts: HeadFacts, _ limits: Limits) throws(HTTPError)
        -> (body: BodyFraming, expectsContinue: Bool)
    {
        let hosts = facts.hosts
        if hosts > 1 { throw HTTPError.malformed("duplicate_host", "more than one Host field") }
        if hosts == 0 && request.version.minor >= 1 { throw HTTPError.malformed("missing_host", "HTTP/1.1 request without Host") }
        guard facts.framingFields else { return (.none, false) }
        let headers = request.headers
        let lengthFields = headers.values(for: .contentLength)
        let transferFields = headers.values(for: .transferEncoding)
        var lengths: [Substring] = [], transferEncodings: [Substring] = []
        for value in lengthFields {
            lengths.append(contentsOf: value.split(separator: ",", omittingEmptySubsequences: false).map(HTTPHeaders.trimmed))
        }
        for value in transferFields {
            transferEncodings.append(contentsOf: value.split(separator: ",").map(HTTPHeaders.trimmed).filter { !$0.isEmpty })
        }
        let sawTransferEncoding = !transferFields.isEmpty
        let expect = headers.values(for: .expect).last
        var expectsContinue = false
        if let expect {
            guard HTTPHeaders.equalsIgnoringCase(expect, "100-continue") else {
                throw HTTPError(.expectationFailed, code: "expectation_failed", message: "only 100-continue is supported", closesConnection: true)
            }
            expectsContinue = request.version.minor >= 1
        }
        if sawTransferEncoding {
            if !lengths.isEmpty { throw HTTPError.malformed("smuggling", "both Content-Length and Transfer-Encoding") }
            if request.version.minor == 0 { throw HTTPError.malformed("smuggling", "Transfer-Encoding in an HTTP/1.0 request") }
            guard let last = transferEncodings.last, HTTPHeaders.equalsIgnoringCase(last, "chunked") else {
                if transferEncodings.contains(where: { HTTPHeaders.equalsIgnoringCase($0, "chunked") }) || transferEncodings.isEmpty {
                    throw HTTPError.malformed("smuggling", "chunked is not the final transfer coding")
                }
                throw HTTPError(.notImplemented, code: "unsupported_transfer_coding", message: "only chunked is supported", closesConnection: true)
            }
            if transferEncodings.count > 1 {
                if transferEncodings.dropLast().contains(where: { HTTPHeaders.equalsIgnoringCase($0, "chunked") }) {
                    throw HTTPError.malformed("smuggling", "chunked applied more than once")
                }
                throw HTTPError(.notImplemented, code: "unsupported_transfer_coding", message: "only chunked is supported", closesConnection: true)
            }
            return (.chunked, expectsContinue)
        }
        guard let first = lengths.first else { return (.none, false) }
        for l in lengths where l != first { throw HTTPError.malformed("smuggling", "conflicting Content-Length values") }
        // 1*DIGIT (RFC 9110 §8.6): leading zeros are valid, so only the significant digits count toward the limit.
        let significant = first.drop { $0 == "0" }
        guard !first.isEmpty, significant.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = significant.isEmpty ? 0 : Int(significant) else {
            if !first.isEmpty && first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                throw HTTPError(.contentTooLarge, code: "body_too_large", message: "body larger than \(limits.maxBodyBytes) bytes", closesConnection: true)
            }
            throw HTTPError.malformed("malformed_content_length", "Content-Length is not a number")
        }
        if n > limits.maxBodyBytes {
            throw HTTPError(.contentTooLarge, code: "body_too_large", message: "body larger than \(limits.maxBodyBytes) bytes", closesConnection: true)
        }
        return (n == 0 ? .none : .length(n), expectsContinue && n > 0)
    }
}
