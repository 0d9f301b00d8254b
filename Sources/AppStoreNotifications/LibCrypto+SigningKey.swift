internal import CCrypto

// The libcrypto calls of the App Store Server API token and of promotional offer signatures: a PEM private key read,
// ES256 (raw r‖s) and DER ECDSA signatures made. (The verifying side's calls are in LibCrypto+X509.swift.)

/// A P-256 private key read by libcrypto (`EVP_PKEY_free` with the object). Signing only reads it, from any thread.
final class ECSigningKey: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Reads a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, what App Store Connect's `.p8` files hold) or SEC 1
    /// (`BEGIN EC PRIVATE KEY`). An encrypted key is refused rather than prompting for a passphrase; a key that is
    /// not on P-256 is refused, ES256 signs with P-256 only (RFC 7518 §3.4).
    init(pem: [UInt8]) throws(AppStoreAPIError) {
        defer { LibCrypto.clearErrors() }
        guard !pem.isEmpty, pem.count < Int(Int32.max) else {
            throw AppStoreAPIError(.invalidKey, "the key file is empty")
        }
        let key: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that gives no passphrase: libcrypto's default would read one from the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else {
            throw AppStoreAPIError(.invalidKey, "not a PEM private key (\(LibCrypto.takeError())); App Store Connect's "
                + "In-App Purchase keys are .p8 files starting with -----BEGIN PRIVATE KEY-----")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, LibCrypto.groupName(of: key) == "prime256v1" else {
            EVP_PKEY_free(key)
            throw AppStoreAPIError(.invalidKey, "the key is not an elliptic-curve key on P-256, which ES256 needs")
        }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// ECDSA P-256 over SHA-256 of `message`, as JWS carries it: r and s, 32 bytes each, big-endian (RFC 7518 §3.4),
    /// not libcrypto's DER `ECDSA-Sig-Value`.
    func signES256(_ message: [UInt8]) throws(AppStoreAPIError) -> [UInt8] {
        defer { LibCrypto.clearErrors() }
        let der = try signatureDER(message)
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw Self.failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?, s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress, let r, let s else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard written else { throw Self.failure("BN_bn2binpad") }
        return raw
    }

    /// ECDSA P-256 over SHA-256 of `message` as libcrypto makes it: the DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3), the
    /// form StoreKit's promotional offer signatures take (Apple's "Generating a signature for promotional offers").
    func signDER(_ message: [UInt8]) throws(AppStoreAPIError) -> [UInt8] {
        defer { LibCrypto.clearErrors() }
        return try signatureDER(message)
    }

    /// The one signing body of both forms: `EVP_DigestSign` with SHA-256, whose output is DER.
    private func signatureDER(_ message: [UInt8]) throws(AppStoreAPIError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw Self.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { throw Self.failure("EVP_DigestSignInit") }
        // A DER ECDSA-Sig-Value of two 256-bit integers is at most 72 bytes.
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &length, input.baseAddress, input.count)
        }
        guard signed == 1, length <= der.count else { throw Self.failure("EVP_DigestSign") }
        der.removeLast(der.count - length)
        return der
    }

    private static func failure(_ step: String) -> AppStoreAPIError {
        AppStoreAPIError(.signingFailed, "\(step): \(LibCrypto.takeError())")
    }
}
