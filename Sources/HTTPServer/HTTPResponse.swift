/// A response a handler gives back. `Date`, `Content-Length` and `Connection` are added by the server
/// (any given here are replaced), so a precomputed value can be returned for every request at the cost of a retain.
public struct HTTPResponse: Sendable {
    /// The status.
    public var status: HTTPStatus
    /// Header fields, in the order they are sent.
    public var headers: HTTPHeaders
    /// The body bytes; not sent for `HEAD` or for statuses that forbid a body, but still counted in `Content-Length` for `HEAD`.
    public var body: [UInt8]
    /// Closes the connection after this response (adds `Connection: close`).
    public var closeConnection: Bool

    /// A response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], closeConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
    }

    /// A JSON response from already-encoded bytes, with `Content-Type: application/json` first.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = HTTPHeaders(reservingCapacity: headers.count + 1)
        all.add(name: "Content-Type", value: "application/json")
        for field in headers where !HTTPHeaders.equalsIgnoringCase(field.name, "Content-Type") { all.appendParsed(field) }
        return HTTPResponse(status: status, headers: all, body: body)
    }

    /// A JSON response from a JSON text.
    public static func json(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        json(Array(text.utf8), status: status, headers: headers)
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = headers
        if !all.contains("Content-Type") { all.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        return HTTPResponse(status: status, headers: all, body: Array(text.utf8))
    }

    /// A body-less response (`204`, `304`, …).
    public static func empty(_ status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
