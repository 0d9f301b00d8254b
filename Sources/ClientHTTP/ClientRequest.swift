import Foundation

/// One HTTP request for an ``HTTPTransport``.
public struct ClientRequest: Sendable, Equatable {
    /// The request method.
    public var method: ClientMethod
    /// An absolute `http` or `https` URL.
    public var url: URL
    /// Request header fields, sent in order. Names the transport manages itself (`Expect`) are overridden.
    public var headers: ClientHeaders
    /// The request content; `nil` sends none (`PUT`, `POST` and `PATCH` then send `Content-Length: 0`).
    public var body: Data?

    /// Creates a request.
    public init(method: ClientMethod = .get, url: URL, headers: ClientHeaders = ClientHeaders(), body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

extension ClientRequest {
    /// Why this request must not reach the wire, or `nil`: another scheme, a method that is not a token, or a
    /// field that could inject lines. Every transport refuses the same requests with ``TransportError/Kind/invalidRequest``.
    var problem: String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return "only absolute http and https URLs are supported"
        }
        guard method.isValidToken else { return "method \(method.rawValue.debugDescription) is not a token" }
        for (name, value) in headers where !ClientHeaders.isSendable(name: name, value: value) {
            return "header \(name.debugDescription) has an invalid name or a CR, LF or NUL in its value"
        }
        return nil
    }

    /// Whether the request carries content, even if empty (then `Content-Length: 0`, RFC 9110 section 8.6):
    /// a body was given, or the method is one whose requests normally have content.
    var sendsBody: Bool {
        body != nil || [.put, .post, .patch].contains(method)
    }
}
