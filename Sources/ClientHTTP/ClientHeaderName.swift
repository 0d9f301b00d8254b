/// A header field name on the client side, compared without regard to ASCII case (RFC 9110 §5.1), with the
/// names the clients use as constants: the same names as the server's `HTTPHeaderName` (`.ifNoneMatch`,
/// `.eTag`), spelled here because ClientHTTP is the app's module and must not import the server's
/// HTTPServer. Header names the flag API itself defines (`X-Change-Message`) are FlagKit's `APIHeader`.
public struct ClientHeaderName: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as it is sent.
    public let rawValue: String

    /// The name `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The name `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A literal name.
    public init(stringLiteral value: String) { rawValue = value }

    /// The name as it is sent.
    public var description: String { rawValue }

    /// Equality ignores ASCII case, as field names do.
    public static func == (lhs: ClientHeaderName, rhs: ClientHeaderName) -> Bool { ClientHeaders.sameName(lhs.rawValue, rhs.rawValue) }

    /// Hashes the lowercased name, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        for byte in rawValue.utf8 { hasher.combine(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
    }

    /// `Accept` (RFC 9110 §12.5.1).
    public static let accept: ClientHeaderName = "Accept"
    /// `Accept-Encoding` (RFC 9110 §12.5.3): with `gzip`, every transport decodes a gzip body before handing it
    /// over (`HTTPTransport`).
    public static let acceptEncoding: ClientHeaderName = "Accept-Encoding"
    /// `Authorization` (RFC 9110 §11.6.2).
    public static let authorization: ClientHeaderName = "Authorization"
    /// `Content-Type` (RFC 9110 §8.3).
    public static let contentType: ClientHeaderName = "Content-Type"
    /// `ETag` (RFC 9110 §8.8.3).
    public static let eTag: ClientHeaderName = "ETag"
    /// `Expect` (RFC 9110 §10.1.1).
    public static let expect: ClientHeaderName = "Expect"
    /// `If-Match` (RFC 9110 §13.1.1).
    public static let ifMatch: ClientHeaderName = "If-Match"
    /// `If-None-Match` (RFC 9110 §13.1.2).
    public static let ifNoneMatch: ClientHeaderName = "If-None-Match"
    /// `Last-Event-ID` (WHATWG HTML §9.2.4).
    public static let lastEventID: ClientHeaderName = "Last-Event-ID"
    /// `Retry-After` (RFC 9110 §10.2.3).
    public static let retryAfter: ClientHeaderName = "Retry-After"
    /// `User-Agent` (RFC 9110 §10.1.5).
    public static let userAgent: ClientHeaderName = "User-Agent"
}

extension ClientHeaders {
    /// The first value of the field `name` (any case), or nil.
    public subscript(name: ClientHeaderName) -> String? { self[name.rawValue] }

    /// Every value of the field `name` (any case), in received order.
    public func values(for name: ClientHeaderName) -> [String] { values(for: name.rawValue) }

    /// Whether a field `name` (any case) is present.
    public func contains(_ name: ClientHeaderName) -> Bool { contains(name.rawValue) }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: ClientHeaderName, value: String) { add(name: name.rawValue, value: value) }

    /// Replaces all fields `name` (any case) by one field with `value`.
    public mutating func set(name: ClientHeaderName, value: String) { set(name: name.rawValue, value: value) }

    /// Removes all fields `name` (any case).
    public mutating func remove(name: ClientHeaderName) { remove(name: name.rawValue) }
}
