import FlagKit
import Foundation

/// Signs Apple's promotional offers (subscription offers for current and lapsed subscribers of the group) with the
/// team's In-App Purchase key, as Apple's "Generating a signature for promotional offers" describes and its App Store
/// Server Library (`PromotionalOfferSignatureCreator`) does: ECDSA P-256 / SHA-256 over the UTF-8 payload
///
///     bundleID ⁣ keyID ⁣ productID ⁣ offerID ⁣ applicationUsername ⁣ nonce ⁣ timestamp
///
/// joined by U+2063 (INVISIBLE SEPARATOR), the username and nonce lowercase, the timestamp in milliseconds, decimal.
/// In StoreKit 2 the application username is the purchase's `appAccountToken` (a UUID), or empty when it has none.
public struct PromotionalOfferSigner: Sendable {
    /// The payload's field separator, U+2063 INVISIBLE SEPARATOR (Apple's format).
    public static let separator = "\u{2063}"

    /// The app's bundle ID (the payload's first field).
    public let bundleID: String
    private let key: AppStoreAPIKey

    /// A signer for `bundleID`'s offers with `key` (the same `.p8` may sign the App Store Server API's tokens).
    public init(key: AppStoreAPIKey, bundleID: String) {
        self.key = key
        self.bundleID = bundleID
    }

    /// The ID of the key that signs (the answers' `keyID`).
    public var keyID: String { key.keyID }

    /// Milliseconds since 1970 UTC now: a signature's `timestamp`.
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The text Apple's server checks the signature against, for the given fields (the `appAccountToken` and the nonce
    /// lowercased, "" for no token).
    public static func payload(bundleID: String, keyID: String, productID: String, offerID: String, appAccountToken: UUID?,
                               nonce: UUID, timestamp: Int64) -> String {
        [bundleID, keyID, productID, offerID, appAccountToken?.uuidString.lowercased() ?? "", nonce.uuidString.lowercased(),
         String(timestamp)].joined(separator: separator)
    }

    /// The signature of `offerID` of `productID` for a purchase with `appAccountToken` (nil: none), with `nonce` and
    /// `timestamp` (by default a new nonce and now). An empty product or offer, or one containing the separator, is
    /// refused (`invalid_claims`): the payload would not say what was meant.
    public func sign(productID: String, offerID: String, appAccountToken: UUID?, nonce: UUID = UUID(),
                     timestamp: Int64 = PromotionalOfferSigner.now()) throws(AppStoreAPIError) -> PromotionalOfferSignature {
        for (name, value) in [("product", productID), ("offer", offerID), ("bundle ID", bundleID)] {
            guard !value.isEmpty, !value.unicodeScalars.contains("\u{2063}") else {
                throw AppStoreAPIError(.invalidClaims, "the \(name) must be a non-empty identifier without U+2063")
            }
        }
        let payload = Self.payload(bundleID: bundleID, keyID: key.keyID, productID: productID, offerID: offerID,
                                   appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp)
        let signature = try key.signDER(Array(payload.utf8))
        // The answer's form (FlagKit's, which the app's client reads): nonce and token lowercase as in the payload, the
        // DER signature in standard base64 as StoreKit takes it and Apple's libraries give it.
        return PromotionalOfferSignature(product: productID, offer: offerID, keyID: key.keyID, nonce: nonce.uuidString.lowercased(),
                                         timestamp: timestamp, signature: Data(signature).base64EncodedString(),
                                         appAccountToken: appAccountToken?.uuidString.lowercased())
    }
}
