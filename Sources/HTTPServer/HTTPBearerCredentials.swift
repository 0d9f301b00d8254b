/// What a request's `Authorization` field says about a bearer token (RFC 6750 §2.1, RFC 9110 §11.6.2):
/// the one parser of it for every server module (the flag API's authentication, OFREP's authorizer and
/// its rate-limit identity).
///
/// ```
/// credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]     (RFC 9110 §11.4)
/// b64token    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="   (RFC 6750 §2.1)
/// ```
///
/// The scheme is case-insensitive (RFC 9110 §11.1). The token's characters are not checked against
/// `b64token`: a token with other characters is simply one the server does not know, which is the same 401.
public enum HTTPBearerCredentials: Sendable, Equatable {
    /// No `Authorization` field.
    case absent
    /// An `Authorization` field that carries no bearer token.
    case malformed(Problem)
    /// `Authorization: Bearer <token>`.
    case token(String)

    /// Why an `Authorization` field is not a bearer token.
    public enum Problem: Sendable, Equatable {
        /// Another scheme (`Basic ...`), or no scheme at all.
        case otherScheme
        /// `Bearer` without a token.
        case missingToken
    }

    /// The credentials of the first `Authorization` field of `headers`.
    public init(_ headers: HTTPHeaders) {
        guard let value = headers[.authorization] else {
            self = .absent
            return
        }
        self.init(field: value)
    }

    /// The credentials of one `Authorization` field value.
    public init(field value: String) {
        // Scheme and credentials are separated by 1*SP; field values arrive trimmed (RFC 9112 §5).
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let scheme = parts.first, HTTPHeaders.equalsIgnoringCase(scheme, "Bearer") else {
            self = .malformed(.otherScheme)
            return
        }
        let token = parts.count == 2 ? HTTPHeaders.trimmed(parts[1]) : ""
        self = token.isEmpty ? .malformed(.missingToken) : .token(String(token))
    }

    /// The token, or nil when absent or malformed.
    public var token: String? {
        if case .token(let token) = self { token } else { nil }
    }
}
