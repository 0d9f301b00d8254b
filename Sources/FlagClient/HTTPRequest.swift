import Foundation

/// One HTTP request for an ``HTTPTransport``.
public struct HTTPRequest: Sendable, Equatable {
    /// The request method.
    public var method: HTTPMethod
    /// An absolute `http` or `https` URL.
    public var url: URL
    /// Request header fields, sent in order. Names the transport manages itself (`Expect`) are overridden.
    public var headers: HTTPHeaders
    /// The request content; `nil` sends none (`PUT`, `POST` and `PATCH` then send `Content-Length: 0`).
    public var body: Data?

    /// Creates a request.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
