import Foundation

/// An HTTP request method (RFC 9110 section 9). Any token is allowed; the common ones have names.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent on the request line, e.g. `GET`.
    public let rawValue: String

    /// Creates a method from its token. The transport refuses tokens that are not RFC 9110 `token`s.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `GET`: fetch a representation.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET` without a body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `PUT`: replace a resource (publishing a document, setting one flag).
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `POST`: actions such as rollback and OFREP evaluation.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PATCH`: partial update.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")

    /// The token, e.g. `PUT`.
    public var description: String { rawValue }

    /// Whether this is a syntactically valid RFC 9110 `token` (section 5.6.2), so it cannot smuggle a request line.
    var isValidToken: Bool {
        guard !rawValue.isEmpty else { return false }
        return rawValue.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

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

/// A complete HTTP response as received: the final status, its header fields and the whole body.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code of the final response (interim 1xx responses are skipped).
    public var status: Int
    /// The header fields of the final response, in received order.
    public var headers: HTTPHeaders
    /// The body bytes, never more than the transport's `maxResponseBodyBytes`.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
