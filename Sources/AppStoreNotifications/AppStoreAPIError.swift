/// Why an App Store Server API token could not be made or an answer of the API could not be read: the reason, and
/// the detail that names the cause (libcrypto's message, the JSON path that did not decode).
public struct AppStoreAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Reason: String, Sendable {
        /// The key file is not a PEM P-256 private key (Apple's `.p8` is PKCS#8, RFC 5208/5958).
        case invalidKey = "invalid_key"
        /// A token's claims cannot be signed as given (an empty identifier, a lifetime Apple refuses).
        case invalidClaims = "invalid_claims"
        /// libcrypto failed to sign.
        case signingFailed = "signing_failed"
        /// A response body is not the JSON Apple documents.
        case invalidResponse = "invalid_response"
    }

    /// The class of failure.
    public var reason: Reason
    /// What exactly was wrong.
    public var detail: String

    /// An error.
    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `invalid_key: ...`.
    public var description: String { "\(reason.rawValue): \(detail)" }
}
