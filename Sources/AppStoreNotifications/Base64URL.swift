internal import CCrypto

/// base64url without padding (RFC 4648 §5, as RFC 7515 §2 uses it), strictly: anything else is refused. The byte
/// work is C's (`ccrypto_base64url_*` in CCrypto's header).
package enum Base64URL {
    /// The bytes, or nil when `text` is not base64url without padding.
    package static func decode(_ text: Substring) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The bytes, or nil when `input` is not base64url without padding.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = input.baseAddress, !input.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: (input.count / 4 + 1) * 3)
        let written = output.withUnsafeMutableBufferPointer { out in
            ccrypto_base64url_decode(base, input.count, out.baseAddress)
        }
        guard written >= 0 else { return nil }
        output.removeLast(output.count - written)
        return output
    }

    /// `bytes` as base64url without padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress else { return "" }
            return String(unsafeUninitializedCapacity: (input.count + 2) / 3 * 4) { output in
                ccrypto_base64url_encode(base, input.count, output.baseAddress)
            }
        }
    }
}
