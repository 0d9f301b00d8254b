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
    var payload: Data
    /// The raw signature bytes (r‖s for ES256).
    var signature: [UInt8]
    /// `header.payload` as sent: what the signature covers (RFC 7515 §5.1 step 8).
    var signingInput: [UInt8]

    init(_ text: String) throws(AppStoreVerificationError) {
        var text = text
        // On the UTF-8 bytes (String.split walks Characters: slower than the ES256 verification in a debug build).
        let parts = text.withUTF8 { bytes -> (header: [UInt8]?, payload: [UInt8]?, signature: [UInt8]?, signingInput: [UInt8])? in
            guard let base = bytes.baseAddress else { return nil }
            func dot(from start: Int) -> Int? {
                guard start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) else {
                    return nil
                }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let first = dot(from: 0), let second = dot(from: first + 1), dot(from: second + 1) == nil else {
                return nil
            }
            let dots = [first, second]
            let header = UnsafeBufferPointer(rebasing: bytes[0..<dots[0]])
            let payload = UnsafeBufferPointer(rebasing: bytes[(dots[0] + 1)..<dots[1]])
            let signature = UnsafeBufferPointer(rebasing: bytes[(dots[1] + 1)...])
            return (Base64URL.decode(header), Base64URL.decode(payload), Base64URL.decode(signature),
                    Array(UnsafeBufferPointer(rebasing: bytes[0..<dots[1]])))
        }
        guard let parts else {
            throw AppStoreVerificationError(.invalidJWS, "a compact JWS has 3 parts separated by 2 dots")
        }
        guard let headerBytes = parts.header else {
            throw AppStoreVerificationError(.invalidJWS, "the header is not base64url")
        }
        guard let payloadBytes = parts.payload else {
            throw AppStoreVerificationError(.invalidJWS, "the payload is not base64url")
        }
        guard let signature = parts.signature else {
            throw AppStoreVerificationError(.invalidJWS, "the signature is not base64url")
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw AppStoreVerificationError(.invalidJWS, "the header is not a JSON object with string alg and x5c: \(JSONPath.describe(error))")
        }
        payload = Data(payloadBytes)
        self.signature = signature
        signingInput = parts.signingInput
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
