/// The protocol version of a request (RFC 9112 §2.3). Only 1.0 and 1.1 are served; others get 505.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// Major digit.
    public var major: Int
    /// Minor digit.
    public var minor: Int

    /// A version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.0`
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// `HTTP/1.1`
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// One parsed request, complete with its body, handed to a handler.
public struct HTTPRequest: Sendable {
    /// The method token.
    public var method: HTTPMethod
    /// The request-target as sent (origin-form `/a/b?c`, or absolute-form `http://h/a/b?c`; RFC 9112 §3.2).
    public var target: String
    /// The path part of the target, still percent-encoded (`/v1/environments/prod/document`).
    public var path: String
    /// The query part after `?`, still percent-encoded, or nil when the target has no `?`.
    public var query: String?
    /// The protocol version.
    public var version: HTTPVersion
    /// Header fields in order, duplicates kept.
    public var headers: HTTPHeaders
    /// The body bytes after removing any chunked framing (empty when there is none).
    public var body: [UInt8]
    /// Trailer fields sent after a chunked body (RFC 9112 §7.1.2); never merged into `headers`.
    public var trailers: HTTPHeaders

    /// A request, for tests and for handlers that forward requests.
    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], trailers: HTTPHeaders = HTTPHeaders()
    ) {
        self.method = method
        self.target = target
        let (path, query) = HTTPRequest.split(target: target)
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// Memberwise, for the parser (which has already split the target).
    init(method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = []
        self.trailers = HTTPHeaders()
    }

    /// Whether the client asked to keep the connection open after this request (RFC 9112 §9.3):
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var wantsKeepAlive: Bool {
        if version.major == 1 && version.minor >= 1 {
            return !headers.hasToken("close", in: .connection)
        }
        return headers.hasToken("keep-alive", in: .connection) && !headers.hasToken("close", in: .connection)
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Splits a target into path and query; an absolute-form target loses its scheme and authority.
    static func split(target: String) -> (String, String?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let schemeEnd = rest.firstRange(of: "://") {
            rest = rest[schemeEnd.upperBound...]
            if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = rest[slash...]
            } else {
                rest = "/"
            }
        }
        guard let q = rest.firstIndex(of: "?") else {
            return (rest.first == "/" ? String(rest) : "/" + rest, nil)
        }
        let path = rest[..<q]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: q)...]))
    }
}
