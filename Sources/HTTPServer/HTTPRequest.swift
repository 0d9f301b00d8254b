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
    /// Everything a request holds, in one object: the request is handed from the parser through the router to
    /// a handler (and to another thread for deferred ones), and each copy of a struct of eight parts retained and
    /// released every one of them (the optimizer kept two such copies per parsed request). Copy on write: a
    /// storage is changed only while one request holds it, so one that is shared never changes.
    ///
    /// No dynamic exclusivity checks on its properties: a shared storage is only read, and a unique one is
    /// changed only through its one request's accessors.
    final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var target: String
        @exclusivity(unchecked) var path: String
        @exclusivity(unchecked) var query: String?
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: [UInt8]
        @exclusivity(unchecked) var trailers: HTTPHeaders

        init(method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPHeaders,
             body: [UInt8], trailers: HTTPHeaders) {
            self.method = method
            self.target = target
            self.path = path
            self.query = query
            self.version = version
            self.headers = headers
            self.body = body
            self.trailers = trailers
        }

        func copy() -> Storage {
            Storage(method: method, target: target, path: path, query: query, version: version, headers: headers, body: body,
                    trailers: trailers)
        }
    }

    private var storage: Storage

    /// The storage, copied first if another request shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The method token.
    public var method: HTTPMethod {
        get { storage.method }
        set { unique().method = newValue }
    }

    /// The request-target as sent (origin-form `/a/b?c`, or absolute-form `http://h/a/b?c`; RFC 9112 §3.2).
    public var target: String {
        get { storage.target }
        set { unique().target = newValue }
    }

    /// The path part of the target, still percent-encoded (`/v1/environments/prod/document`).
    public var path: String {
        get { storage.path }
        set { unique().path = newValue }
    }

    /// The query part after `?`, still percent-encoded, or nil when the target has no `?`.
    public var query: String? {
        get { storage.query }
        set { unique().query = newValue }
    }

    /// The protocol version.
    public var version: HTTPVersion {
        get { storage.version }
        set { unique().version = newValue }
    }

    /// Header fields in order, duplicates kept.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &unique().headers }
    }

    /// The body bytes after removing any chunked framing (empty when there is none).
    public var body: [UInt8] {
        get { storage.body }
        _modify { yield &unique().body }
    }

    /// Trailer fields sent after a chunked body (RFC 9112 §7.1.2); never merged into `headers`.
    public var trailers: HTTPHeaders {
        get { storage.trailers }
        _modify { yield &unique().trailers }
    }

    /// The minor version alone (no copy of the rest).
    var minorVersion: Int { storage.version.minor }

    /// Whether the path is `path` (the same string object is recognized without comparing bytes).
    @inline(__always)
    func hasPath(_ path: String) -> Bool { storage.path == path }

    /// Calls `body` with the path's UTF-8 bytes, without a copy of the string.
    func withPathBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = storage.path.utf8.withContiguousStorageIfAvailable(body) { return result }
        var path = storage.path
        return path.withUTF8(body)
    }

    /// A request, for tests and for handlers that forward requests.
    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], trailers: HTTPHeaders = HTTPHeaders()
    ) {
        let (path, query) = HTTPRequest.split(target: target)
        storage = Storage(method: method, target: target, path: path, query: query, version: version, headers: headers,
                          body: body, trailers: trailers)
    }

    /// Memberwise, for the parser (which has already split the target).
    init(method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPHeaders) {
        storage = Storage(method: method, target: target, path: path, query: query, version: version, headers: headers,
                          body: [], trailers: HTTPHeaders())
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
