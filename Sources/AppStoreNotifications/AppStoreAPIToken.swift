import Foundation

/// A bearer token for the App Store Server API, as Apple's "Generating JSON Web Tokens for API requests" describes
/// it: a JWT (RFC 7519) in JWS compact serialization (RFC 7515 §7.1) signed with ES256 by the team's In-App Purchase
/// key. Header `{"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}`; claims `iss` (the issuer ID), `iat` and `exp` (seconds
/// since 1970; Apple refuses a token that lives longer than 60 minutes), `aud` `appstoreconnect-v1`, `bid` (the app's
/// bundle ID).
public struct AppStoreAPIToken: Sendable, Equatable {
    /// The audience Apple requires.
    public static let audience = "appstoreconnect-v1"
    /// Apple's limit on `exp - iat`.
    public static let maximumLifetimeSeconds: Int64 = 60 * 60
    /// What a backfill uses: long enough for its requests, well inside Apple's limit.
    public static let defaultLifetimeSeconds: Int64 = 20 * 60

    /// The JOSE header (RFC 7515 §4.1).
    public struct Header: Codable, Sendable, Equatable {
        /// `ES256`.
        public var alg: String
        /// The key ID.
        public var kid: String
        /// `JWT` (RFC 7519 §5.1).
        public var typ: String
    }

    /// The claims (RFC 7519 §4.1 and Apple's `bid`).
    public struct Claims: Codable, Sendable, Equatable {
        /// The issuer ID (App Store Connect's Integrations page shows it above the keys).
        public var iss: String
        /// Issued at, seconds since 1970.
        public var iat: Int64
        /// Expires at, seconds since 1970.
        public var exp: Int64
        /// `appstoreconnect-v1`.
        public var aud: String
        /// The app's bundle ID.
        public var bid: String
    }

    /// The header.
    public let header: Header
    /// The claims.
    public let claims: Claims

    /// A token for `bundleID`'s app issued at `issuedAt` (seconds since 1970), valid `lifetimeSeconds` (1 to 3600).
    public init(keyID: String, issuerID: String, bundleID: String, issuedAt: Int64,
                lifetimeSeconds: Int64 = defaultLifetimeSeconds) throws(AppStoreAPIError) {
        guard !keyID.isEmpty, !issuerID.isEmpty, !bundleID.isEmpty else {
            throw AppStoreAPIError(.invalidClaims, "the key ID, issuer ID and bundle ID must not be empty")
        }
        guard (1...Self.maximumLifetimeSeconds).contains(lifetimeSeconds) else {
            throw AppStoreAPIError(.invalidClaims, "a token lives 1 to \(Self.maximumLifetimeSeconds) seconds, not \(lifetimeSeconds)")
        }
        header = Header(alg: "ES256", kid: keyID, typ: "JWT")
        claims = Claims(iss: issuerID, iat: issuedAt, exp: issuedAt + lifetimeSeconds, aud: Self.audience, bid: bundleID)
    }

    /// `header.claims.signature`, each base64url without padding (RFC 7515 §2, §7.1), signed with `key`
    /// (whose ID must be the header's `kid`).
    public func signed(with key: AppStoreAPIKey) throws(AppStoreAPIError) -> String {
        guard key.keyID == header.kid else {
            throw AppStoreAPIError(.invalidClaims, "the header names key \(header.kid), the key given is \(key.keyID)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerJSON: Data, claimsJSON: Data
        do {
            headerJSON = try encoder.encode(header)
            claimsJSON = try encoder.encode(claims)
        } catch {
            throw AppStoreAPIError(.invalidClaims, "JSON encoding: \(error)")
        }
        let signingInput = Base64URL.encode([UInt8](headerJSON)) + "." + Base64URL.encode([UInt8](claimsJSON))
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
