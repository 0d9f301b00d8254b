import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import Foundation
import Testing

/// Promotional offer signatures as Apple's "Generating a signature for promotional offers" and its App Store Server
/// Library (`PromotionalOfferSignatureCreator`) make them: the payload's fields, separators and case, and an ECDSA
/// P-256 / SHA-256 DER signature that the key's public half verifies (libcrypto calls of the test support's own; the
/// Python peer test in Tests/appstore checks it against Apple's library).
@Suite struct PromotionalOfferSignerTests {
    let testKey: AppStoreTestAPIKey
    let signer: PromotionalOfferSigner

    init() throws {
        testKey = try AppStoreTestAPIKey()
        signer = PromotionalOfferSigner(key: try AppStoreAPIKey(pem: Array(testKey.privateKeyPEM.utf8), keyID: "2X9R4HXF34"),
                                        bundleID: "app.symi.journal")
    }

    /// The DER bytes of an answer's base64 signature.
    static func der(_ signed: PromotionalOfferSignature) throws -> [UInt8] {
        try #require(Data(base64Encoded: signed.signature).map(Array.init))
    }

    static let nonce = UUID(uuidString: "D6A2C9F0-3B1E-4C7A-9E55-0F1B2C3D4E5F")!
    static let token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    @Test func thePayloadIsApplesWithAndWithoutAnAppAccountToken() {
        let withToken = PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_50",
            appAccountToken: Self.token, nonce: Self.nonce, timestamp: 1_796_000_000_123)
        // UUID prints uppercase; Apple's format takes the username and nonce lowercase.
        #expect(withToken == "app.symi.journal\u{2063}2X9R4HXF34\u{2063}symi_plus_monthly_499\u{2063}winback_50\u{2063}"
            + "e621e1f8-c36c-495a-93fc-0c247a3e6e5f\u{2063}d6a2c9f0-3b1e-4c7a-9e55-0f1b2c3d4e5f\u{2063}1796000000123")
        let without = PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_50",
            appAccountToken: nil, nonce: Self.nonce, timestamp: 0)
        #expect(without == "app.symi.journal\u{2063}2X9R4HXF34\u{2063}symi_plus_monthly_499\u{2063}winback_50\u{2063}"
            + "\u{2063}d6a2c9f0-3b1e-4c7a-9e55-0f1b2c3d4e5f\u{2063}0")
        // Seven fields, six separators of three UTF-8 bytes each (E2 81 A3).
        #expect(without.unicodeScalars.filter { $0 == "\u{2063}" }.count == 6)
        #expect(Array(without.utf8).count == without.unicodeScalars.count + 6 * 2)
    }

    @Test func theSignatureIsDERAndVerifiesWithThePublicKeyOverThePayload() throws {
        let signed = try signer.sign(productID: "symi_plus_monthly_499", offerID: "winback_50", appAccountToken: Self.token,
                                     nonce: Self.nonce, timestamp: 1_796_000_000_123)
        #expect(signed.keyID == "2X9R4HXF34" && signed.nonce == Self.nonce.uuidString.lowercased() && signed.timestamp == 1_796_000_000_123)
        #expect(signed.product == "symi_plus_monthly_499" && signed.offer == "winback_50"
            && signed.appAccountToken == Self.token.uuidString.lowercased())
        let der = try Self.der(signed)
        // DER ECDSA-Sig-Value: a SEQUENCE of two INTEGERs, 8 to 72 bytes for P-256.
        #expect(der.first == 0x30 && (8...72).contains(der.count))
        #expect(Int(der[1]) == der.count - 2)
        let payload = Array(PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_50",
            appAccountToken: Self.token, nonce: Self.nonce, timestamp: 1_796_000_000_123).utf8)
        #expect(testKey.verifiesDER(signature: der, of: payload))
        // The verifier can say no: another field, one flipped bit, another key.
        let otherOffer = Array(PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_40",
            appAccountToken: Self.token, nonce: Self.nonce, timestamp: 1_796_000_000_123).utf8)
        #expect(!testKey.verifiesDER(signature: der, of: otherOffer))
        var flipped = der
        flipped[flipped.count - 1] ^= 0x01
        #expect(!testKey.verifiesDER(signature: flipped, of: payload))
        #expect(!(try AppStoreTestAPIKey()).verifiesDER(signature: der, of: payload))
        // Without a token the username field is empty, and that is what is signed.
        let anonymous = try signer.sign(productID: "symi_plus_monthly_499", offerID: "winback_50", appAccountToken: nil,
                                        nonce: Self.nonce, timestamp: 5)
        let anonymousPayload = Array(PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_50",
            appAccountToken: nil, nonce: Self.nonce, timestamp: 5).utf8)
        #expect(testKey.verifiesDER(signature: try Self.der(anonymous), of: anonymousPayload))
        #expect(!testKey.verifiesDER(signature: try Self.der(anonymous), of: payload))
    }

    @Test func eachCallHasANewNonceAndTheTimeOfSigning() throws {
        let before = PromotionalOfferSigner.now()
        let first = try signer.sign(productID: "symi_plus_monthly_499", offerID: "winback_50", appAccountToken: nil)
        let second = try signer.sign(productID: "symi_plus_monthly_499", offerID: "winback_50", appAccountToken: nil)
        let after = PromotionalOfferSigner.now()
        #expect(first.nonce != second.nonce)
        #expect(first.signature != second.signature)
        #expect((before...after).contains(first.timestamp) && (first.timestamp...after).contains(second.timestamp))
        for signed in [first, second] {
            let payload = PromotionalOfferSigner.payload(
                bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: "symi_plus_monthly_499", offerID: "winback_50",
                appAccountToken: nil, nonce: try #require(UUID(uuidString: signed.nonce)), timestamp: signed.timestamp)
            #expect(testKey.verifiesDER(signature: try Self.der(signed), of: Array(payload.utf8)))
        }
    }

    @Test func anEmptyIdentifierOrOneWithTheSeparatorIsRefused() throws {
        for (product, offer) in [("", "winback_50"), ("symi_plus_monthly_499", ""), ("a\u{2063}b", "winback_50"),
                                 ("symi_plus_monthly_499", "x\u{2063}")] {
            #expect(throws: AppStoreAPIError.self) { try signer.sign(productID: product, offerID: offer, appAccountToken: nil) }
        }
        let noBundle = PromotionalOfferSigner(key: try AppStoreAPIKey(pem: Array(testKey.privateKeyPEM.utf8), keyID: "K"), bundleID: "")
        do {
            _ = try noBundle.sign(productID: "p", offerID: "o", appAccountToken: nil)
            Issue.record("an empty bundle ID was signed")
        } catch {
            #expect(error.reason == .invalidClaims)
        }
    }
}
