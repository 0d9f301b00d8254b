/// A response a handler gives back. `Date`, `Content-Length` and `Connection` are added by the server
/// (any given here are replaced), so a precomputed value can be returned for every request at the cost of a retain.
public struct HTTPResponse: Sendable {
    /// The status.
    public var status: HTTPStatus { didSet { encodedHead = nil } }
    /// Header fields, in the order they are sent.
    public var headers: HTTPHeaders { didSet { encodedHead = nil } }
    /// The body bytes; not sent for `HEAD` or for statuses that forbid a body, but still counted in `Content-Length` for `HEAD`.
    public var body: [UInt8]
    /// Closes the connection after this response (adds `Connection: close`).
    public var closeConnection: Bool
    /// The status line and the handler's header fields as sent, once `encodingHead()` made them; cleared by
    /// any change to `status` or `headers`, so it can never disagree with them.
    package private(set) var encodedHead: [UInt8]?

    /// A response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], closeConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
        self.encodedHead = nil
    }

    /// The same response with its status line and header fields encoded now, for a response that is built
    /// once and sent many times (a document snapshot): each send then copies one byte array instead of
    /// encoding every field again.
    public func encodingHead() -> HTTPResponse {
        var copy = self
        copy.encodedHead = HTTPResponse.encodeHead(status: status, headers: headers)
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

    static func appendHead(status: HTTPStatus, headers: HTTPHeaders, to out: inout [UInt8]) {
        out.append(contentsOf: EventLoop.statusLinePrefix)
        Connection.appendDecimal(status.code, to: &out)
        out.append(0x20)
        out.append(contentsOf: status.reasonPhrase.utf8)
        out.append(contentsOf: EventLoop.crlf)
        for field in headers where !Connection.isServerOwned(field.name) {
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: EventLoop.colonSpace)
            out.append(contentsOf: field.value.utf8)
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
