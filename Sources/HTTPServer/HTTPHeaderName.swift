/// A header field name (RFC 9110 §5.1), compared without regard to ASCII case by `HTTPHeaders`.
///
/// The names the server and its modules use are constants here (`HTTPHeaderName.ifNoneMatch`), so a name
/// is spelled once instead of as a string literal in every module; a module that defines its own fields
/// adds them in an extension (FlagService: the API's `X-Change-Message`, FlagOFREP: `X-API-Key`). A string
/// literal still works where a name is needed (`["X-Custom": "1"]`), as in FlyingFox's `HTTPHeader`.
///
/// The constants are computed and `@inlinable`: a name is a string literal (small names are stored inline,
/// longer ones point at immortal static storage), so using one costs what the literal did; a `static let`
/// would add a lazy-initialization check and a retain on every use, on every request.
public struct HTTPHeaderName: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as it is sent.
    public let rawValue: String

    /// The name `rawValue`.
    @inlinable public init(rawValue: String) { self.rawValue = rawValue }

    /// The name `rawValue`.
    @inlinable public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A literal name.
    @inlinable public init(stringLiteral value: String) { rawValue = value }

    /// The name as it is sent.
    public var description: String { rawValue }

    /// Equality ignores ASCII case, as field names do (RFC 9110 §5.1).
    public static func == (lhs: HTTPHeaderName, rhs: HTTPHeaderName) -> Bool {
        HTTPHeaders.equalsIgnoringCase(lhs.rawValue, rhs.rawValue)
    }

    /// Hashes the lowercased name, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        for byte in rawValue.utf8 { hasher.combine(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
    }
}

extension HTTPHeaderName {
    /// `Accept` (RFC 9110 §12.5.1).
    @inlinable public static var accept: Self { "Accept" }
    /// `Accept-Encoding` (RFC 9110 §12.5.3), read with `HTTPAcceptEncoding`.
    @inlinable public static var acceptEncoding: Self { "Accept-Encoding" }
    /// `Allow` (RFC 9110 §10.2.1): the methods a 405 path supports.
    @inlinable public static var allow: Self { "Allow" }
    /// `Authorization` (RFC 9110 §11.6.2).
    @inlinable public static var authorization: Self { "Authorization" }
    /// `Cache-Control` (RFC 9111 §5.2).
    @inlinable public static var cacheControl: Self { "Cache-Control" }
    /// `Connection` (RFC 9110 §7.6.1).
    @inlinable public static var connection: Self { "Connection" }
    /// `Content-Encoding` (RFC 9110 §8.4).
    @inlinable public static var contentEncoding: Self { "Content-Encoding" }
    /// `Content-Length` (RFC 9110 §8.6).
    @inlinable public static var contentLength: Self { "Content-Length" }
    /// `Content-Security-Policy` (W3C CSP Level 3).
    @inlinable public static var contentSecurityPolicy: Self { "Content-Security-Policy" }
    /// `Content-Type` (RFC 9110 §8.3).
    @inlinable public static var contentType: Self { "Content-Type" }
    /// `Date` (RFC 9110 §6.6.1).
    @inlinable public static var date: Self { "Date" }
    /// `ETag` (RFC 9110 §8.8.3).
    @inlinable public static var eTag: Self { "ETag" }
    /// `Expect` (RFC 9110 §10.1.1).
    @inlinable public static var expect: Self { "Expect" }
    /// `Host` (RFC 9110 §7.2).
    @inlinable public static var host: Self { "Host" }
    /// `If-Match` (RFC 9110 §13.1.1).
    @inlinable public static var ifMatch: Self { "If-Match" }
    /// `If-None-Match` (RFC 9110 §13.1.2).
    @inlinable public static var ifNoneMatch: Self { "If-None-Match" }
    /// `Last-Event-ID` (WHATWG HTML §9.2.4): the id of the last server-sent event a reconnecting client saw.
    @inlinable public static var lastEventID: Self { "Last-Event-ID" }
    /// `Last-Modified` (RFC 9110 §8.8.2).
    @inlinable public static var lastModified: Self { "Last-Modified" }
    /// `Link` (RFC 8288 §3).
    @inlinable public static var link: Self { "Link" }
    /// `Location` (RFC 9110 §10.2.2): where a created (201) or accepted (202) resource lives.
    @inlinable public static var location: Self { "Location" }
    /// `Retry-After` (RFC 9110 §10.2.3).
    @inlinable public static var retryAfter: Self { "Retry-After" }
    /// `Transfer-Encoding` (RFC 9112 §6.1).
    @inlinable public static var transferEncoding: Self { "Transfer-Encoding" }
    /// `Vary` (RFC 9110 §12.5.5).
    @inlinable public static var vary: Self { "Vary" }
    /// `WWW-Authenticate` (RFC 9110 §11.6.1).
    @inlinable public static var wwwAuthenticate: Self { "WWW-Authenticate" }
    /// `X-Accel-Buffering`: nginx passes a response with `no` on unbuffered, whatever `proxy_buffering` says.
    @inlinable public static var xAccelBuffering: Self { "X-Accel-Buffering" }
    /// `X-Content-Type-Options` (WHATWG Fetch §3.5): `nosniff`.
    @inlinable public static var xContentTypeOptions: Self { "X-Content-Type-Options" }
    /// `X-Forwarded-For`: the client chain a proxy saw (de facto; RFC 7239 standardized `Forwarded`).
    @inlinable public static var xForwardedFor: Self { "X-Forwarded-For" }
    /// `X-Forwarded-Proto`: the scheme (`https`) a TLS-terminating proxy received the request on (de facto).
    @inlinable public static var xForwardedProto: Self { "X-Forwarded-Proto" }
    /// `X-Real-IP`: the client address nginx's `proxy_set_header X-Real-IP $remote_addr` passes on.
    @inlinable public static var xRealIP: Self { "X-Real-IP" }
}
