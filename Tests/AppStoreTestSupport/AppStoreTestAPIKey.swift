internal import CCrypto

/// A throw-away In-App Purchase key, as App Store Connect hands one out: a fresh P-256 key as a PKCS#8 PEM (`.p8`),
/// its public key as PEM (what an independent verifier such as PyJWT checks the App Store Server API tokens with),
/// and ES256 and DER ECDSA verifiers of its own, with libcrypto calls separate from the signer's under test.
package struct AppStoreTestAPIKey: Sendable {
    /// The private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the `.p8` file's content.
    package let privateKeyPEM: String
    /// The public key, SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package let publicKeyPEM: String
    private let key: TestECKey

    /// A new key (a millisecond).
    package init() throws(AppStoreTestSupportError) {
        let key = try TestECKey()
        privateKeyPEM = try Self.pem { bio in PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) }
        publicKeyPEM = try Self.pem { bio in PEM_write_bio_PUBKEY(bio, key.pointer) }
        self.key = key
    }

    /// Whether `signature` (raw r‖s, RFC 7518 §3.4) is this key's ES256 signature of `message`.
    package func verifiesES256(signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count == 64, let parsed = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(parsed) }
        let r = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(parsed, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return false
        }
        let length = i2d_ECDSA_SIG(parsed, nil)
        guard length > 0 else { return false }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(parsed, &cursor)
        }
        guard written == length else { return false }
        return verifiesDER(signature: der, of: message)
    }

    /// Whether `signature` (DER `ECDSA-Sig-Value`, RFC 3279 §2.2.3: a promotional offer's) is this key's ECDSA
    /// P-256 / SHA-256 signature of `message`.
    package func verifiesDER(signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// What `write` puts into a memory BIO, as text.
    private static func pem(_ write: (OpaquePointer) -> Int32) throws(AppStoreTestSupportError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TestCrypto.failure("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TestCrypto.failure("PEM_write_bio") }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = BIO_read(bio, &bytes, Int32(bytes.count))
        guard read == Int32(bytes.count) else { throw TestCrypto.failure("BIO_read") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
