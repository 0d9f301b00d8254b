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

    /// Parses the request line and field lines of `head` (without the final CRLFCRLF).
    static func parseHeadBlock(_ head: UnsafeRawBufferPointer, _ limits: Limits, hosts: inout HostCache) throws(HTTPError) -> HTTPRequest {
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
        var queryStart = -1
        for i in afterMethod..<sp2 {
            let b = line[i]
            // Visible ASCII only (RFC 3986 characters); anything else, including obs-text, is refused.
            guard b > 0x20 && b < 0x7F else { throw HTTPError.malformed("malformed_request_line", "bad character in target") }
            if b == 0x3F && queryStart < 0 { queryStart = i }
        }
        let version = try parseVersion(UnsafeRawBufferPointer(rebasing: line[(sp2 + 1)...]))
        let method = HTTPMethod(bytes: UnsafeRawBufferPointer(rebasing: line[0..<sp1]))
        let targetBytes = UnsafeRawBufferPointer(rebasing: line[afterMethod..<sp2])
        let target = String(decoding: targetBytes, as: UTF8.self)
        var path: String
        var query: String?
        if targetBytes[0] == 0x2F {
            if queryStart < 0 {
                path = target
            } else {
                path = String(decoding: UnsafeRawBufferPointer(rebasing: line[afterMethod..<queryStart]), as: UTF8.self)
                query = String(decoding: UnsafeRawBufferPointer(rebasing: line[(queryStart + 1)..<sp2]), as: UTF8.self)
            }
        } else if targetBytes.count == 1 && targetBytes[0] == 0x2A {
            // asterisk-form is only for OPTIONS (RFC 9112 §3.2.4)
            guard method == .OPTIONS else { throw HTTPError.malformed("malformed_request_line", "* target without OPTIONS") }
            path = "*"
        } else if method == .CONNECT {
            throw HTTPError(.notImplemented, code: "not_implemented", message: "CONNECT is not supported", closesConnection: true)
        } else if target.hasPrefix("http://") || target.hasPrefix("https://") {
            (path, query) = HTTPRequest.split(target: target)
        } else {
            throw HTTPError.malformed("malformed_request_line", "unsupported request-target form")
        }
        var headers = HTTPHeaders(reservingCapacity: 8)
        var i = lineEnd + 2
        while i < head.count {
            let end = head.index(of: 0x0D, from: i) ?? head.count
            headers.appendParsed(try parseField(UnsafeRawBufferPointer(rebasing: head[i..<end]), hosts: &hosts))
            if headers.count > limits.maxHeaderCount {
                throw HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers", message: "more than \(limits.maxHeaderCount) header fields", closesConnection: true)
            }
            i = end + 2
        }
        return HTTPRequest(method: method, target: target, path: path, query: query, version: version, headers: headers)
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

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5). No whitespace before the colon
    /// (§5.1: must be refused), no obs-fold (§5.2), no CTL in the value except HTAB.
    static func parseField(_ line: UnsafeRawBufferPointer, hosts: inout HostCache) throws(HTTPError) -> HTTPHeaders.Field {
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
        for i in s..<e {
            let b = line[i]
            if (b < 0x20 && b != 0x09) || b == 0x7F { throw HTTPError.malformed("malformed_header", "control character in field value") }
        }
        // Host, in any case: checked here on the raw bytes, where it costs a few instructions per byte.
        if colon == 4 && line[0] | 0x20 == 0x68 && line[1] | 0x20 == 0x6F && line[2] | 0x20 == 0x73 && line[3] | 0x20 == 0x74
            && !hosts.isValid(UnsafeRawBufferPointer(rebasing: line[s..<e])) {
            throw HTTPError.malformed("invalid_host", "Host is not uri-host [ \":\" port ]")
        }
        return HTTPHeaders.Field(
            name: commonFieldName(UnsafeRawBufferPointer(rebasing: line[0..<colon]))
                ?? String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<colon]), as: UTF8.self),
            value: String(decoding: UnsafeRawBufferPointer(rebasing: line[s..<e]), as: UTF8.self))
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
    static func framing(of request: inout HTTPRequest, _ limits: Limits) throws(HTTPError)
        -> (body: BodyFraming, expectsContinue: Bool)
    {
        var hosts = 0, transferEncodings: [Substring] = [], lengths: [Substring] = []
        var expect: String?
        var sawTransferEncoding = false
        // By index: iterating the headers would copy each field (a retain and release of both strings).
        for index in request.headers.indices {
            let field = request.headers.fields[index]
            let n = field.name.utf8
            if n.count == 4 && HTTPHeaders.equalsIgnoringCase(field.name, HTTPHeaderName.host.rawValue) {
                hosts += 1
            } else if n.count == 14 && HTTPHeaders.equalsIgnoringCase(field.name, HTTPHeaderName.contentLength.rawValue) {
                lengths.append(contentsOf: field.value.split(separator: ",", omittingEmptySubsequences: false).map(HTTPHeaders.trimmed))
            } else if n.count == 17 && HTTPHeaders.equalsIgnoringCase(field.name, HTTPHeaderName.transferEncoding.rawValue) {
                sawTransferEncoding = true
                transferEncodings.append(contentsOf: field.value.split(separator: ",").map(HTTPHeaders.trimmed).filter { !$0.isEmpty })
            } else if n.count == 6 && HTTPHeaders.equalsIgnoringCase(field.name, HTTPHeaderName.expect.rawValue) {
                expect = field.value
            }
        }
        if hosts > 1 { throw HTTPError.malformed("duplicate_host", "more than one Host field") }
        if hosts == 0 && request.version.minor >= 1 { throw HTTPError.malformed("missing_host", "HTTP/1.1 request without Host") }
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
