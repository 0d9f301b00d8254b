/// HMAC-SHA256 (RFC 2104, with SHA-256 as in RFC 4231) over this module's own `SHA256`.
///
/// Webhook deliveries are signed with it (`docs/governance.md`: `v1` is the lowercase hex HMAC of
/// `"<t>." + body` keyed with the webhook's secret). Written here for the same reason as `SHA256`:
/// Foundation on Linux has no CryptoKit and the project takes no outside packages.
public enum HMACSHA256 {
    /// SHA-256's block size in bytes (`B` in RFC 2104).
    public static let blockSize = 64
    /// The length of a code in bytes (`L` in RFC 2104).
    public static let codeSize = 32

    /// `H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message))`, 32 bytes.
    ///
    /// A key longer than the block size is hashed first and a shorter one padded with zeros (RFC 2104 §2),
    /// so any key length is accepted; RFC 2104 §3 recommends keys of at least 32 bytes.
    public static func authenticationCode<Key: Sequence, Message: Sequence>(key: Key, message: Message) -> [UInt8]
    where Key.Element == UInt8, Message.Element == UInt8 {
        var block = Array(key)
        if block.count > blockSize { block = SHA256.hash(block) }
        block.append(contentsOf: repeatElement(0, count: blockSize - block.count))
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// The code as 64 lowercase hex digits (the form a `Symi-Webhook-Signature` header carries).
    public static func hexAuthenticationCode<Key: Sequence, Message: Sequence>(key: Key, message: Message) -> String
    where Key.Element == UInt8, Message.Element == UInt8 {
        SHA256.hex(authenticationCode(key: key, message: message))
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in time that does not
    /// depend on where the two first differ (a verifier must not leak how much of a forged code was right).
    public static func isValid<Key: Sequence, Message: Sequence>(code: [UInt8], key: Key, message: Message) -> Bool
    where Key.Element == UInt8, Message.Element == UInt8 {
        let expected = authenticationCode(key: key, message: message)
        guard code.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ code[index] }
        return difference == 0
    }
}
