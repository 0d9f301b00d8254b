internal import CCrypto

// Every libcrypto call of the test support: P-256 keys, X.509 certificates built and signed, ES256 signatures.

/// What went wrong building test certificates or signing (a libcrypto failure, with its message).
package struct AppStoreTestSupportError: Error, CustomStringConvertible {
    /// The failing step and libcrypto's message.
    package var description: String
}

/// A P-256 private key (`EVP_PKEY_free` with the object). Signing only reads it, from any thread.
final class TestECKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init() throws(AppStoreTestSupportError) {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw TestCrypto.failure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key else { throw TestCrypto.failure("EC key generation") }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// ES256: ECDSA P-256 over SHA-256, as raw r‖s (RFC 7518 §3.4).
    func signES256(_ message: [UInt8]) throws(AppStoreTestSupportError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw TestCrypto.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { throw TestCrypto.failure("EVP_DigestSignInit") }
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { throw TestCrypto.failure("EVP_DigestSign") }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }
        guard let parsed else { throw TestCrypto.failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?, s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard written else { throw TestCrypto.failure("BN_bn2binpad") }
        return raw
    }
}

/// One certificate to build.
struct TestCertificateSpec {
    var commonName: String
    var serial: Int
    var notBefore: Int64
    var notAfter: Int64
    var isCA: Bool
    /// Dotted OIDs of Apple's marker extensions to carry (value ASN.1 NULL, as Apple's).
    var markers: [String]
}

enum TestCrypto {
    static func failure(_ step: String) -> AppStoreTestSupportError {
        let code = ERR_get_error()
        ERR_clear_error()
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return AppStoreTestSupportError(description: "\(step): \(message)")
    }

    /// A certificate for `key`, signed by `issuerKey` (itself when `issuer` is nil), with the extensions RFC 5280
    /// and OpenSSL's X509_STRICT ask for (critical basic constraints and key usage on CAs, key identifiers), as DER.
    static func certificate(_ spec: TestCertificateSpec, key: TestECKey, issuer: (der: [UInt8], key: TestECKey)?)
        throws(AppStoreTestSupportError) -> [UInt8] {
        guard let certificate = X509_new() else { throw failure("X509_new") }
        defer { X509_free(certificate) }
        var issuerCertificate: OpaquePointer?
        if let issuer {
            issuerCertificate = issuer.der.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            }
            guard issuerCertificate != nil else { throw failure("d2i_X509 (issuer)") }
        }
        defer { if let issuerCertificate { X509_free(issuerCertificate) } }
        guard X509_set_version(certificate, 2) == 1,
              ASN1_INTEGER_set(X509_get_serialNumber(certificate), spec.serial) == 1,
              ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(spec.notBefore)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(spec.notAfter)) != nil,
              X509_set_pubkey(certificate, key.pointer) == 1 else { throw failure("certificate fields") }
        let name = X509_get_subject_name(certificate)
        let commonName = Array(spec.commonName.utf8), organization = Array("Symi test CA (not Apple)".utf8)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, Int32(commonName.count), -1, 0) == 1,
              X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, organization, Int32(organization.count), -1, 0) == 1,
              X509_set_issuer_name(certificate, issuerCertificate.map { X509_get_subject_name($0) } ?? name) == 1
        else { throw failure("names") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate ?? certificate, certificate, nil, nil, 0)
        var extensions: [(String, String)] = spec.isCA
            ? [("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "critical,keyCertSign,cRLSign")]
            : [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature")]
        extensions.append(("subjectKeyIdentifier", "hash"))
        extensions.append(("authorityKeyIdentifier", "keyid:always"))
        extensions += spec.markers.map { ($0, "DER:05:00") }
        for (name, value) in extensions {
            guard let ext = X509V3_EXT_nconf(nil, &context, name, value) else { throw failure("extension \(name)") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else { throw failure("X509_add_ext \(name)") }
        }
        guard X509_sign(certificate, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else { throw failure("X509_sign") }
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { throw failure("i2d_X509") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        guard written == length else { throw failure("i2d_X509") }
        return der
    }
}
