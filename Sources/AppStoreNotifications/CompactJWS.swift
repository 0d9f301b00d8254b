import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each base64url without padding
/// (RFC 7515 §2). Parsing checks the form only; `SignedPayloadVerifier` decides whether to trust it.
struct CompactJWS {
    /// The JOSE header members this verifier reads (RFC 7515 §4.1.1 `alg`, §4.1.6 `x5c`); others are ignored.
    struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
    }

    var header: Header
    /// The decoded payload bytes (JSON for Apple's objects).
    var payload: [UInt8]
    /// The raw signature bytes (r‖s for ES256).
    var signature: [UInt8]
    /// `header.payload` as sent: what the signature covers (RFC 7515 §5.1 step 8).
    var signingInput: [UInt8]

    init(_ text: String) throws(AppStoreVerificationError) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AppStoreVerificationError(.invalidJWS, "a compact JWS has 3 parts separated by dots, this has \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]) else {
            throw AppStoreVerificationError(.invalidJWS, "the header is not base64url")
        }
        guard let payload = Base64URL.decode(parts[1]) else {
            throw AppStoreVerificationError(.invalidJWS, "the payload is not base64url")
        }
        guard let signature = Base64URL.decode(parts[2]) else {
            throw AppStoreVerificationError(.invalidJWS, "the signature is not base64url")
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw AppStoreVerificationError(.invalidJWS, "the header is not a JSON object with string alg and x5c: \(JSONPath.describe(error))")
        }
        self.payload = payload
        self.signature = signature
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
    }
}

/// base64url without padding (RFC 4648 §5, as RFC 7515 §2 uses it); anything else is refused.
package enum Base64URL {
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var standard = [UInt8]()
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }

    package static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}

/// The JSON path of a decoding failure (`data.signedDate`), for the detail of `invalid_payload`.
enum JSONPath {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "(top level)" }
        return keys.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}
