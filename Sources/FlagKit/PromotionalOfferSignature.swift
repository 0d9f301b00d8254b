/// A promotional offer signed for one purchase, as `POST /v1/environments/{env}/offer-signatures` answers it
/// (docs/api.md, "Offer signatures"): what StoreKit's `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:
/// signature:timestamp:)` takes, for an experiment arm `product/offer` of `paywallProduct`.
///
/// The one home of the wire contract: the server encodes with ``members``, the app's client decodes with
/// ``init(validating:)``. Apple signs nothing here; the App Store checks the signature when the purchase is made, so
/// the client checks only the shape (a nonce that is a lowercase UUID, a base64 signature, a positive timestamp).
public struct PromotionalOfferSignature: Sendable, Equatable {
    /// The subscription's product id (`symi_plus_monthly_499`).
    public var product: String
    /// The promotional offer's id as App Store Connect names it (`winback_50`).
    public var offer: String
    /// The id of the In-App Purchase key that signed it.
    public var keyID: String
    /// The one-time anti-replay value, a lowercase UUID (Apple: "Use lowercase").
    public var nonce: String
    /// When it was signed, milliseconds since 1970; the App Store accepts it for 24 hours.
    public var timestamp: Int64
    /// The ECDSA P-256 SHA-256 signature, DER, in standard base64 (RFC 4648 §4).
    public var signature: String
    /// The purchase's `appAccountToken` the signature covers (lowercase UUID), if any: the purchase must carry the same.
    public var appAccountToken: String?

    /// How long the App Store accepts a signature after its timestamp (Apple's "generating a signature for
    /// promotional offers": the timestamp keeps the offer active for 24 hours).
    public static let validityMilliseconds: Int64 = 86_400_000

    /// A signature from its parts.
    public init(product: String, offer: String, keyID: String, nonce: String, timestamp: Int64, signature: String,
                appAccountToken: String? = nil) {
        self.product = product
        self.offer = offer
        self.keyID = keyID
        self.nonce = nonce
        self.timestamp = timestamp
        self.signature = signature
        self.appAccountToken = appAccountToken
    }

    /// The members as the server sends them (`appAccountToken` left out when there is none).
    public var members: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "product": .string(product), "offer": .string(offer), "keyID": .string(keyID), "nonce": .string(nonce),
            "timestamp": .integer(timestamp), "signature": .string(signature),
        ]
        if let appAccountToken { members["appAccountToken"] = .string(appAccountToken) }
        return members
    }

    /// Reads and checks an answer's members; unknown members are ignored, so the server may add some.
    public init(validating object: [String: JSONValue]) throws(FlagEnvelopeError) {
        func text(_ name: String) throws(FlagEnvelopeError) -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw .notAnEnvelope(path: "/\(name)", problem: "a non-empty string is required")
            }
            return value
        }
        product = try text("product")
        offer = try text("offer")
        keyID = try text("keyID")
        nonce = try text("nonce")
        guard Self.isLowercaseUUID(nonce) else {
            throw .notAnEnvelope(path: "/nonce", problem: "must be a lowercase UUID (8-4-4-4-12 hex digits)")
        }
        guard let timestamp = object["timestamp"]?.integerValue, timestamp > 0 else {
            throw .notAnEnvelope(path: "/timestamp", problem: "milliseconds since 1970, a positive integer, are required")
        }
        self.timestamp = timestamp
        signature = try text("signature")
        guard Self.isBase64(signature) else {
            throw .notAnEnvelope(path: "/signature", problem: "must be standard base64 (RFC 4648 §4)")
        }
        switch object["appAccountToken"] {
        case nil, .null?:
            appAccountToken = nil
        case .string(let token)? where Self.isLowercaseUUID(token):
            appAccountToken = token
        default:
            throw .notAnEnvelope(path: "/appAccountToken", problem: "must be a lowercase UUID when present")
        }
    }

    /// Whether the signature may still be used at `milliseconds` (since 1970): within ``validityMilliseconds`` of its
    /// timestamp, less `margin` for the time the purchase sheet stays open.
    public func isUsable(at milliseconds: Int64, margin: Int64 = 3_600_000) -> Bool {
        milliseconds >= timestamp - margin && milliseconds < timestamp + Self.validityMilliseconds - margin
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in lowercase hex digits.
    public static func isLowercaseUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                else { return false }
            }
        }
        return true
    }

    /// Standard base64 with padding: the alphabet of RFC 4648 §4, a length that is a multiple of 4, at most two `=`.
    static func isBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}
