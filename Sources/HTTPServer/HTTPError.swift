/// The one error of this module: a refusal that renders itself as a JSON response
/// (`{"error":{"code":"...","message":"..."}}`), or a system call failure that keeps its `errno`.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status sent to the client.
    public var status: HTTPStatus
    /// A stable machine-readable code (`"malformed_header"`, `"not_found"`, …).
    public var code: String
    /// A short human-readable message.
    public var message: String
    /// Extra headers to send (`Allow` on 405, `Retry-After` on 503).
    public var headers: HTTPHeaders
    /// Whether the connection cannot be trusted after this error (framing is lost) and must close.
    public var closesConnection: Bool
    /// The system call that failed (`"bind"`), when the cause is the OS.
    public var systemCall: String?
    /// Its `errno`.
    public var errno: Int32?

    /// A refusal.
    public init(
        _ status: HTTPStatus, code: String, message: String, headers: HTTPHeaders = HTTPHeaders(), closesConnection: Bool = false
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.closesConnection = closesConnection
        self.systemCall = nil
        self.errno = nil
    }

    /// A failed system call (start-up, socket options); status 500.
    public static func system(_ call: String, errno: Int32) -> HTTPError {
        var e = HTTPError(.internalServerError, code: "system", message: "\(call) failed: errno \(errno)", closesConnection: true)
        e.systemCall = call
        e.errno = errno
        return e
    }

    /// The response for anything a handler threw: an `HTTPError` as itself, anything else a 500 that says
    /// no more (the cause belongs in the server's log, not in the response).
    public static func response(for error: any Error) -> HTTPResponse {
        (error as? HTTPError)?.response ?? HTTPError(.internalServerError, code: "internal", message: "handler failed").response
    }

    /// `"400 malformed_header: ..."`
    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON response for this error.
    public var response: HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(40 + code.utf8.count + message.utf8.count)
        body.append(contentsOf: #"{"error":{"code":"#.utf8)
        HTTPError.appendJSONString(code, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        HTTPError.appendJSONString(message, to: &body)
        body.append(contentsOf: "}}\n".utf8)
        var response = HTTPResponse.json(body, status: status, headers: headers)
        response.closeConnection = closesConnection
        return response
    }

    /// Appends `text` as a JSON string literal (RFC 8259 §7).
    static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for b in text.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    /// 404 for an unknown path.
    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(.notFound, code: "not_found", message: "no resource at \(path)")
    }

    /// 405 with the `Allow` header listing what the path supports (RFC 9110 §15.5.6).
    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(
            .methodNotAllowed, code: "method_not_allowed", message: "\(method) is not allowed here",
            headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
    }

    /// 400 with the given code, closing the connection (the stream's framing is no longer trusted).
    static func malformed(_ code: String, _ message: String) -> HTTPError {
        HTTPError(.badRequest, code: code, message: message, closesConnection: true)
    }
}
