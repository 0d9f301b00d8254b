/// The team's In-App Purchase key for the App Store Server API (App Store Connect → Users and Access → Integrations →
/// In-App Purchase): its key ID and the P-256 private key of the `.p8` file Apple lets you download once. It signs the
/// tokens of `AppStoreAPIToken` and the promotional offers of `PromotionalOfferSigner` (Apple: In-App Purchase keys sign
/// both).
public struct AppStoreAPIKey: Sendable {
    /// The key's ID as App Store Connect shows it (the token header's `kid`).
    public let keyID: String
    private let key: ECSigningKey

    /// The key in `pem` (the `.p8` file's bytes) with its ID; refuses anything but an unencrypted P-256 private key.
    public init(pem: [UInt8], keyID: String) throws(AppStoreAPIError) {
        guard !keyID.isEmpty else { throw AppStoreAPIError(.invalidClaims, "the key ID is empty") }
        self.keyID = keyID
        key = try ECSigningKey(pem: pem)
    }

    /// An ES256 signature of `message`, raw r‖s (RFC 7518 §3.4).
    public func signES256(_ message: [UInt8]) throws(AppStoreAPIError) -> [UInt8] {
        try key.signES256(message)
    }

    /// An ECDSA P-256 / SHA-256 signature of `message` as DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3), what StoreKit's
    /// promotional offers carry.
    func signDER(_ message: [UInt8]) throws(AppStoreAPIError) -> [UInt8] {
        try key.signDER(message)
    }
}
