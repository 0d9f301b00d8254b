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
        /// `x5c[2]`, the root as sent, replaced by these bytes (not a refusal: Apple's library does not read it).
        case rootAsSent([UInt8])
        /// A member added to the payload after signing (the signature stays that of the original).
        case payloadEditedAfterSigning
    }

    /// The chain whose leaf signs.
    package let ca: AppStoreTestCA
    /// `x5c` in Apple's order, base64.
    private let x5c: [String]
    /// The header Apple sends, base64url: made once (every notification has the same).
    private let appleHeader: String

    /// A signer with `ca`'s leaf key.
    package init(ca: AppStoreTestCA) {
        self.ca = ca
        x5c = [ca.leafDER, ca.intermediateDER, ca.rootDER].map { Data($0).base64EncodedString() }
        appleHeader = Self.header(alg: "ES256", x5c: x5c)
    }

    private static func header(alg: String, x5c: [String]) -> String {
        let members = x5c.map { "\"\($0)\"" }.joined(separator: ",")
        return Base64URL.encode(Array(#"{"alg":"\#(alg)","x5c":[\#(members)]}"#.utf8))
    }

    /// `object` as a JWS (JSON with sorted keys; strings, integers, booleans, doubles, arrays, objects, NSNull).
    package func sign(_ object: [String: Any], tampering: Tampering = .none) throws -> String {
        try sign(json: Array(TestJSON.encode(object).utf8), tampering: tampering)
    }

    /// JSON bytes as a JWS.
    package func sign(json payload: [UInt8], tampering: Tampering = .none) throws -> String {
        let header: String
        switch tampering {
        case .algorithmNone: header = Self.header(alg: "none", x5c: x5c)
        case .algorithmHS256: header = Self.header(alg: "HS256", x5c: x5c)
        case .chainOutOfOrder: header = Self.header(alg: "ES256", x5c: [x5c[1], x5c[0], x5c[2]])
        case .x5cOrder(let order): header = Self.header(alg: "ES256", x5c: order.map { x5c[$0] })
        case .rootAsSent(let der): header = Self.header(alg: "ES256", x5c: [x5c[0], x5c[1], Data(der).base64EncodedString()])
        default: header = appleHeader
        }
        let signingInput = header + "." + Base64URL.encode(payload)
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
            payloadPart = Base64URL.encode(Array(payload.dropLast()) + Array(#","edited":true}"#.utf8))
        }
        return header + "." + payloadPart + "." + Base64URL.encode(signature)
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
