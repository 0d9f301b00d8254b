import AppStoreNotifications
import Foundation
import Testing

/// What a signature hands to StoreKit: standard base64 with padding (not base64url) and the nonce lowercase.
@Suite struct PromotionalOfferSignatureTests {
    @Test func base64IsStandardWithPaddingAndTheNonceIsLowercase() throws {
        let nonce = try #require(UUID(uuidString: "D6A2C9F0-3B1E-4C7A-9E55-0F1B2C3D4E5F"))
        // 0xFB 0xFF -> "+/8=": the alphabet and padding of RFC 4648 §4, not §5's.
        let signature = PromotionalOfferSignature(keyID: "K", nonce: nonce, timestamp: 1, signature: [0xFB, 0xFF])
        #expect(signature.base64 == "+/8=")
        #expect(signature.nonceString == "d6a2c9f0-3b1e-4c7a-9e55-0f1b2c3d4e5f")
        let bytes = (0..<71).map { UInt8(truncatingIfNeeded: $0 * 37) }
        let long = PromotionalOfferSignature(keyID: "K", nonce: nonce, timestamp: 1, signature: bytes)
        #expect(Data(base64Encoded: long.base64).map(Array.init) == bytes)
        #expect(long.base64.hasSuffix("=") && long.base64.count == 96)
    }
}
