import Foundation

/// One signed promotional offer, what StoreKit's `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`
/// (and SKPaymentDiscount) takes beside the product and offer: the key that signed, the one-time nonce, the time of
/// signing and the signature. Apple accepts it for 24 hours after `timestamp`.
public struct PromotionalOfferSignature: Sendable, Equatable {
    /// The In-App Purchase key's ID (the payload's second field).
    public let keyID: String
    /// The one-time nonce, new for every signature (Apple: "Generate a new nonce for every signature").
    public let nonce: UUID
    /// When it was signed, milliseconds since 1970 UTC.
    public let timestamp: Int64
    /// The ECDSA P-256 / SHA-256 signature of the payload, DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3).
    public let signature: [UInt8]

    /// A signature as `PromotionalOfferSigner` makes it.
    public init(keyID: String, nonce: UUID, timestamp: Int64, signature: [UInt8]) {
        self.keyID = keyID
        self.nonce = nonce
        self.timestamp = timestamp
        self.signature = signature
    }

    /// The signature in standard base64 with padding (RFC 4648 §4), as StoreKit takes it and Apple's libraries give it.
    public var base64: String { Data(signature).base64EncodedString() }

    /// The nonce as the payload and the answer carry it: a lowercase UUID.
    public var nonceString: String { nonce.uuidString.lowercased() }
}
