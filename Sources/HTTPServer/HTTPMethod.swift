/// A request method (RFC 9110 §9). Any token is accepted on the wire; the router decides what it serves.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent (methods are case-sensitive, RFC 9110 §9.1).
    public let rawValue: String

    /// Wraps a method token.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a method token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The token, for logs.
    public var description: String { rawValue }

    /// `GET`
    public static let GET = HTTPMethod("GET")
    /// `HEAD`: answered like `GET` without a body (RFC 9110 §9.3.2).
    public static let HEAD = HTTPMethod("HEAD")
    /// `POST`
    public static let POST = HTTPMethod("POST")
    /// `PUT`
    public static let PUT = HTTPMethod("PUT")
    /// `DELETE`
    public static let DELETE = HTTPMethod("DELETE")
    /// `PATCH`
    public static let PATCH = HTTPMethod("PATCH")
    /// `OPTIONS`
    public static let OPTIONS = HTTPMethod("OPTIONS")
    /// `CONNECT`: never served (no tunnels).
    public static let CONNECT = HTTPMethod("CONNECT")
    /// `TRACE`
    public static let TRACE = HTTPMethod("TRACE")

    /// Builds the method from the bytes of a request line, reusing the shared strings for common methods.
    init(bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 3 where bytes[0] == 0x47 && bytes[1] == 0x45 && bytes[2] == 0x54: self = .GET
        case 3 where bytes[0] == 0x50 && bytes[1] == 0x55 && bytes[2] == 0x54: self = .PUT
        case 4 where bytes[0] == 0x50 && bytes[1] == 0x4F && bytes[2] == 0x53 && bytes[3] == 0x54: self = .POST
        case 4 where bytes[0] == 0x48 && bytes[1] == 0x45 && bytes[2] == 0x41 && bytes[3] == 0x44: self = .HEAD
        default: self = HTTPMethod(String(decoding: bytes, as: UTF8.self))
        }
    }
}
