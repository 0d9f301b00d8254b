/// An HTTP request method (RFC 9110 section 9). Any token is allowed; the common ones have names.
public struct ClientMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent on the request line, e.g. `GET`.
    public let rawValue: String

    /// Creates a method from its token. The transport refuses tokens that are not RFC 9110 `token`s.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `GET`: fetch a representation.
    public static let get = ClientMethod(rawValue: "GET")
    /// `HEAD`: like `GET` without a body.
    public static let head = ClientMethod(rawValue: "HEAD")
    /// `PUT`: replace a resource (publishing a document, setting one flag).
    public static let put = ClientMethod(rawValue: "PUT")
    /// `POST`: actions such as rollback and OFREP evaluation.
    public static let post = ClientMethod(rawValue: "POST")
    /// `PATCH`: partial update.
    public static let patch = ClientMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = ClientMethod(rawValue: "DELETE")

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
