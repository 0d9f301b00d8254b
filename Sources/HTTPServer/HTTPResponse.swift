/// A response a handler gives back. `Date`, `Content-Length` and `Connection` are added by the server
/// (any given here are replaced), so a precomputed value can be returned for every request at the cost of a retain.
public struct HTTPResponse: Sendable {
    /// Everything a response holds, in one object: a copy of a response (a prepared one is copied out of its
    /// snapshot for every request, then handed along) is one retain instead of one per array and string.
    /// Copy on write: a storage is changed only while one response holds it (`isKnownUniquelyReferenced`), so
    /// one that is shared, also across threads, never changes.
    ///
    /// No dynamic exclusivity checks on its properties (each access would pay a begin/end access): a shared
    /// storage is only read, and a unique one is changed only through its one response's accessors.
    final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var status: HTTPStatus
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: [UInt8]
        @exclusivity(unchecked) var closeConnection: Bool
        @exclusivity(unchecked) var encodedHead: [UInt8]?
        @exclusivity(unchecked) var encodedLengthLine: [UInt8]?

        init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8], closeConnection: Bool,
             encodedHead: [UInt8]?, encodedLengthLine: [UInt8]?) {
            self.status = status
            self.headers = headers
            self.body = body
            self.closeConnection = closeConnection
            self.encodedHead = encodedHead
            self.encodedLengthLine = encodedLengthLine
        }

        func copy() -> Storage {
            Storage(status: status, headers: headers, body: body, closeConnection: closeConnection,
                    encodedHead: encodedHead, encodedLengthLine: encodedLengthLine)
        }
    }

    private var storage: Storage

    /// The storage, copied first if another response shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The status code alone (no copy of the reason phrase).
    public var statusCode: Int { storage.status.code }

    /// The status.
    public var status: HTTPStatus {
        get { storage.status }
        set {
            let storage = unique()
            storage.status = newValue
            storage.encodedHead = nil
            storage.encodedLengthLine = nil
        }
    }

    /// Header fields, in the order they are sent.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify {
            let storage = unique()
            storage.encodedHead = nil
            storage.encodedLengthLine = nil
            yield &storage.headers
        }
    }

    /// The body bytes; not sent for `HEAD` or for statuses that forbid a body, but still counted in `Content-Length` for `HEAD`.
    public var body: [UInt8] {
        get { storage.body }
        _modify {
            let storage = unique()
            storage.encodedLengthLine = nil
            yield &storage.body
        }
    }

    /// Closes the connection after this response (adds `Connection: close`).
    public var closeConnection: Bool {
        get { storage.closeConnection }
        set { unique().closeConnection = newValue }
    }

    /// The status line and the handler's header fields as sent, once `encodingHead()` made them; cleared by
    /// any change to `status` or `headers`, so it can never disagree with them.
    package var encodedHead: [UInt8]? { storage.encodedHead }

    /// `Content-Length: <body.count>\r\n`, made with `encodedHead` for a status that allows a body; cleared by
    /// any change to `status`, `headers` or `body`.
    package var encodedLengthLine: [UInt8]? { storage.encodedLengthLine }

    /// The byte count of the body, without a copy of the array.
    var bodyCount: Int { storage.body.count }

    /// Calls `body` with the body's bytes, without a copy of the array.
    func withBodyBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { storage.body.withUnsafeBytes(body) }

    /// A response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], closeConnection: Bool = false) {
        storage = Storage(status: status, headers: headers, body: body, closeConnection: closeConnection,
                          encodedHead: nil, encodedLengthLine: nil)
    }

    /// The same response with its status line and header fields encoded now, for a response that is built
    /// once and sent many times (a document snapshot): each send then copies one byte array instead of
    /// encoding every field again.
    public func encodingHead() -> HTTPResponse {
        var lengthLine: [UInt8]?
        if !status.forbidsBody {
            var line = EventLoop.contentLengthPrefix
            Connection.appendDecimal(body.count, to: &line)
            line.append(contentsOf: EventLoop.crlf)
            lengthLine = line
        }
        var copy = self
        copy.storage = Storage(status: status, headers: headers, body: body, closeConnection: closeConnection,
                               encodedHead: HTTPResponse.encodeHead(status: status, headers: headers), encodedLengthLine: lengthLine)
        return copy
    }

    /// `HTTP/1.1 200 OK\r\n` and each field not owned by the server (`Date`, `Content-Length`,
    /// `Connection`, `Transfer-Encoding` are always written by the server itself).
    static func encodeHead(status: HTTPStatus, headers: HTTPHeaders) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32 + headers.count * 48)
        appendHead(status: status, headers: headers, to: &out)
        return out
    }

    static func appendHead<Sink: ByteSink>(status: HTTPStatus, headers: HTTPHeaders, to out: inout Sink) {
        out.append(contentsOf: EventLoop.statusLinePrefix)
        Connection.appendDecimal(status.code, to: &out)
        out.append(0x20)
        out.append(utf8: status.reasonPhrase)
        out.append(contentsOf: EventLoop.crlf)
        for field in headers where !Connection.isServerOwned(field.name) {
            out.append(utf8: field.name)
            out.append(contentsOf: EventLoop.colonSpace)
            out.append(utf8: field.value)
            out.append(contentsOf: EventLoop.crlf)
        }
    }

    /// A JSON response from already-encoded bytes, with `Content-Type: application/json` first.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = HTTPHeaders(reservingCapacity: headers.count + 1)
        all.add(name: .contentType, value: "application/json")
        for field in headers where !HTTPHeaders.equalsIgnoringCase(field.name, HTTPHeaderName.contentType.rawValue) {
            all.appendParsed(field)
        }
        return HTTPResponse(status: status, headers: all, body: body)
    }

    /// A JSON response from a JSON text.
    public static func json(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        json(Array(text.utf8), status: status, headers: headers)
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = headers
        if !all.contains(.contentType) { all.add(name: .contentType, value: "text/plain; charset=utf-8") }
        return HTTPResponse(status: status, headers: all, body: Array(text.utf8))
    }

    /// A body-less response (`204`, `304`, …).
    public static func empty(_ status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
