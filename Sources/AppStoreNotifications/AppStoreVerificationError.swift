/// Why a notification (or one of its nested signed objects) was refused. `reason` is the stable code the receiver
/// answers and logs; `detail` says what exactly, with the JSON path of a bad field.
public struct AppStoreVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The refusal's stable code (`rawValue` is what the HTTP answer and the metrics carry).
    public enum Reason: String, Sendable, CaseIterable {
        /// The body is not a JSON object with a string `signedPayload`.
        case invalidJSON = "invalid_json"
        /// Not a JWS in compact serialization (RFC 7515 §7.1), or its header is not a JSON object with `x5c` strings.
        case invalidJWS = "invalid_jws"
        /// `alg` is not `ES256` (Apple signs with ES256 only; `none` and HMAC would let anyone sign).
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// The ES256 signature does not verify with the leaf certificate's P-256 key.
        case invalidSignature = "invalid_signature"
        /// `x5c` is not leaf, intermediate, root, or the chain does not lead to a configured root.
        case invalidChain = "invalid_chain"
        /// A certificate of the chain was expired or not yet valid at the payload's `signedDate`.
        case certificateNotValidAtSignedDate = "certificate_not_valid_at_signed_date"
        /// Apple's marker extension is missing on the leaf (1.2.840.113635.100.6.11.1) or the intermediate
        /// (1.2.840.113635.100.6.2.1).
        case missingMarker = "missing_marker"
        /// `bundleId` is not the configured one.
        case wrongBundleID = "wrong_bundle_id"
        /// `appAppleId` is not the configured one (checked in Production, as Apple's libraries do).
        case wrongAppAppleID = "wrong_app_apple_id"
        /// `environment` is not one of the configured ones.
        case wrongEnvironment = "wrong_environment"
        /// The signed payload is not the JSON Apple documents (a required field missing, a field of the wrong type).
        case invalidPayload = "invalid_payload"
        /// A configured root certificate is not a DER or PEM X.509 certificate libcrypto accepts.
        case invalidRootCertificate = "invalid_root_certificate"
    }

    /// The refusal's code.
    public var reason: Reason
    /// What exactly was wrong (for logs; never shown to Apple beyond the code).
    public var detail: String

    /// An error with its code and what exactly was wrong.
    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail`.
    public var description: String { "\(reason.rawValue): \(detail)" }

    /// The same error with `prefix` in front of its detail: where a nested signed object was refused.
    func within(_ prefix: String) -> AppStoreVerificationError {
        AppStoreVerificationError(reason, "\(prefix): \(detail)")
    }
}
