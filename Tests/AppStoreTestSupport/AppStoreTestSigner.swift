import AppStoreNotifications
import Foundation

/// Signs JSON objects as Apple signs App Store data: a compact JWS, `alg` ES256, the chain in `x5c` (leaf,
/// intermediate, root; base64 DER), the signature raw r‖s; in process with libcrypto (tens of microseconds), so a test
/// may sign a hundred thousand notifications. Each `Tampering` makes one of the forms a verifier must refuse.
package struct AppStoreTestSigner: Sendable {
    /// A form a verifier must refuse.
    package enum Tampering: Sendable, Equatable {
        /// Signed properly.
        case none
        /// `alg` none and an empty signature (RFC 7518 §3.6).
        case algorithmNone
        /// `alg` HS256, an HMAC keyed with the leaf's public certificate (the key-confusion attack).
        case algorithmHS256
        /// One bit of the signature flipped.
        case flippedSignatureByte
        /// `x5c` as intermediate, leaf, root.
        case chainOutOfOrder
        /// `x5c` as these indices of [leaf, intermediate, root] (`[0, 1, 2]` is Apple's order).
        case x5cOrder([Int])
        /// A member added to the payload after signing (the signature stays that of the original).
        case payloadEditedAfterSigning
    }

    /// The chain whose leaf signs.
    package let ca: AppStoreTestCA

    /// A signer with `ca`'s leaf key.
    package init(ca: AppStoreTestCA) { self.ca = ca }

    /// `object` as a JWS (JSON with sorted keys).
    package func sign(_ object: [String: Any], tampering: Tampering = .none) throws -> String {
        try sign(json: JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).map { $0 }, tampering: tampering)
    }

    /// JSON bytes as a JWS.
    package func sign(json payload: [UInt8], tampering: Tampering = .none) throws -> String {
        var x5c = [ca.leafDER, ca.intermediateDER, ca.rootDER].map { Data($0).base64EncodedString() }
        if tampering == .chainOutOfOrder { x5c.swapAt(0, 1) }
        if case .x5cOrder(let order) = tampering { x5c = order.map { x5c[$0] } }
        let alg = switch tampering {
        case .algorithmNone: "none"
        case .algorithmHS256: "HS256"
        default: "ES256"
        }
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "x5c": x5c], options: [.sortedKeys])
        let signingInput = Base64URL.encode([UInt8](header)) + "." + Base64URL.encode(payload)
        var signature: [UInt8]
        switch tampering {
        case .algorithmNone:
            signature = []
        case .algorithmHS256:
            signature = Self.hmacSHA256(key: Array(AppStoreTestCA.pem(ca.leafDER).utf8), message: Array(signingInput.utf8))
        default:
            signature = try ca.leafKey.signES256(Array(signingInput.utf8))
        }
        if tampering == .flippedSignatureByte { signature[signature.count / 2] ^= 0x01 }
        var payloadPart = Base64URL.encode(payload)
        if tampering == .payloadEditedAfterSigning, payload.last == UInt8(ascii: "}") {
            payloadPart = Base64URL.encode(payload.dropLast() + Array(#","edited":true}"#.utf8))
        }
        return Base64URL.encode([UInt8](header)) + "." + payloadPart + "." + Base64URL.encode(signature)
    }

    /// HMAC-SHA256, as an attacker would make an HS256 token.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let hex = NotificationRecord.subscriptionHash(originalTransactionID: String(decoding: message, as: UTF8.self), key: key)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
