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
    /// A numeric IPv4 or IPv6 address (no brackets) to connect to instead of resolving the URL's host; nil: resolve.
    /// The `Host` field, TLS's server name and the certificate check keep the URL's host. For a caller that resolved
    /// and checked the name itself (webhooks: a name that resolves elsewhere on the transport's own lookup, DNS
    /// rebinding, must not be connected to). Only libcurl can do this; URLSession refuses such a request.
    public var connectAddress: String?

    /// Creates a request.
    public init(method: ClientMethod = .get, url: URL, headers: ClientHeaders = ClientHeaders(), body: Data? = nil,
                connectAddress: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectAddress = connectAddress
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
        if let address = connectAddress, address.isEmpty || !address.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) {
            return "connect address \(address.debugDescription) is not a numeric IPv4 or IPv6 address"
        }
        return nil
    }

    /// `problem`, or for URLSession, which always resolves the URL's host itself, a `connectAddress` it cannot honour.
    var urlSessionProblem: String? {
        problem ?? connectAddress.map { _ in "URLSession cannot connect to a given address (connectAddress); libcurl can" }
    }

    /// Whether the request carries content, even if empty (then `Content-Length: 0`, RFC 9110 section 8.6):
    /// a body was given, or the method is one whose requests normally have content.
    var sendsBody: Bool {
        body != nil || [.put, .post, .patch].contains(method)
    }
}
