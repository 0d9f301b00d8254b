internal import CCrypto
import Foundation

// Every libcrypto call of the module is in this file: X.509 parsing, the chain to a configured root at a given time,
// Apple's marker extensions, ES256 (ECDSA P-256 with SHA-256) and HMAC-SHA256. Each libcrypto object is owned by one
// Swift value and freed with it.

/// A DER certificate parsed by libcrypto (`X509_free` with the object).
final class X509Certificate: @unchecked Sendable {
    // Immutable after init; libcrypto's read functions on an X509 may run on several threads at once.
    let pointer: OpaquePointer

    /// Parses `der`; the whole input must be one certificate (no trailing bytes).
    init(der: [UInt8]) throws(AppStoreVerificationError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == base + buffer.count else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else {
            throw AppStoreVerificationError(.invalidChain, "not a DER X.509 certificate (\(LibCrypto.takeError()))")
        }
        pointer = parsed
    }

    deinit { X509_free(pointer) }

    /// Whether the certificate carries an extension with this dotted OID (its value is not read: Apple's rule).
    func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            LibCrypto.clearErrors()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }

    /// Whether `issuer`'s subject is this certificate's issuer and its key identifier and key usage fit
    /// (`X509_check_issued`: names and identifiers only, no signature).
    func isIssued(by issuer: X509Certificate) -> Bool {
        defer { LibCrypto.clearErrors() }
        return X509_check_issued(issuer.pointer, pointer) == X509_V_OK
    }

    /// Whether this is a CA certificate (`X509_check_ca`): a leaf that signs data is not.
    var isCA: Bool {
        defer { LibCrypto.clearErrors() }
        return X509_check_ca(pointer) != 0
    }

    /// Whether both are the same certificate.
    func isSame(as other: X509Certificate) -> Bool { X509_cmp(pointer, other.pointer) == 0 }

    /// Whether `signature` (raw r‖s, 64 bytes: RFC 7518 §3.4) is an ECDSA P-256 SHA-256 signature of `message`
    /// by this certificate's key. A key that is not P-256 verifies nothing.
    func verifiesES256(signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { LibCrypto.clearErrors() }
        guard signature.count == 64, let key = X509_get0_pubkey(pointer), EVP_PKEY_get_base_id(key) == EVP_PKEY_EC,
              LibCrypto.groupName(of: key) == "prime256v1", let der = LibCrypto.derSignature(raw: signature),
              let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return der.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
                                 messageBytes.count) == 1
            }
        }
    }
}

/// The configured roots as a libcrypto trust store (`X509_STORE_free` with the object). Verifying reads the store
/// only (libcrypto locks its lookups), so one store serves every thread.
final class X509TrustStore: @unchecked Sendable {
    private let store: OpaquePointer

    /// How a chain fared.
    enum Verdict {
        /// Leaf → intermediate → a configured root; every certificate is valid from `notBefore` through `notAfter`
        /// (seconds since 1970, inclusive: RFC 5280 §4.1.2.5), the intersection of the three.
        case valid(notBefore: Int64, notAfter: Int64)
        case invalid(String)
    }

    init(roots: [X509Certificate]) throws(AppStoreVerificationError) {
        guard let store = X509_STORE_new() else {
            throw AppStoreVerificationError(.invalidRootCertificate, "X509_STORE_new: \(LibCrypto.takeError())")
        }
        self.store = store
        for root in roots where X509_STORE_add_cert(store, root.pointer) != 1 {
            throw AppStoreVerificationError(.invalidRootCertificate, "X509_STORE_add_cert: \(LibCrypto.takeError())")
        }
    }

    deinit { X509_STORE_free(store) }

    /// Verifies leaf → intermediate → a configured root with `X509_V_FLAG_X509_STRICT` (RFC 5280 profile checks, as
    /// Apple's Python library sets) and that the chain built is exactly those three; the dates are returned, not
    /// checked, so that a chain verified once can be checked at each payload's `signedDate`.
    func verify(leaf: X509Certificate, intermediate: X509Certificate) -> Verdict {
        defer { LibCrypto.clearErrors() }
        guard let context = X509_STORE_CTX_new(), let untrusted = OPENSSL_sk_new_null() else {
            return .invalid("out of memory")
        }
        defer {
            OPENSSL_sk_free(untrusted)
            X509_STORE_CTX_free(context)
        }
        guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate.pointer)) > 0,
              X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            return .invalid("X509_STORE_CTX_init: \(LibCrypto.takeError())")
        }
        // The dates are compared by the caller, inclusive of notAfter as the OpenSSL of Apple's Python library reads
        // them (OpenSSL 3.0's own check counts the notAfter second as expired).
        X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT | X509_V_FLAG_NO_CHECK_TIME))
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            return .invalid("certificate \(depth): \(String(cString: X509_verify_cert_error_string(Int(code))))")
        }
        guard let chain = X509_STORE_CTX_get0_chain(context), OPENSSL_sk_num(chain) == 3,
              let first = OPENSSL_sk_value(chain, 0), let second = OPENSSL_sk_value(chain, 1),
              X509_cmp(OpaquePointer(first), leaf.pointer) == 0,
              X509_cmp(OpaquePointer(second), intermediate.pointer) == 0 else {
            return .invalid("the chain built is not leaf, intermediate, configured root")
        }
        var notBefore = Int64.min, notAfter = Int64.max
        for depth in 0..<3 {
            guard let element = OPENSSL_sk_value(chain, Int32(depth)),
                  let from = LibCrypto.seconds(X509_get0_notBefore(OpaquePointer(element))),
                  let until = LibCrypto.seconds(X509_get0_notAfter(OpaquePointer(element))) else {
                return .invalid("certificate \(depth): unreadable validity dates")
            }
            notBefore = max(notBefore, from)
            notAfter = min(notAfter, until)
        }
        return .valid(notBefore: notBefore, notAfter: notAfter)
    }
}

/// libcrypto's error queue, ECDSA signature encodings and HMAC.
enum LibCrypto {
    /// The oldest error on this thread's queue, then the queue emptied (it is per thread: a failure must not leak
    /// into the next call's message).
    static func takeError() -> String {
        let code = ERR_get_error()
        clearErrors()
        guard code != 0 else { return "no libcrypto error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func clearErrors() { ERR_clear_error() }

    /// An ASN.1 time (UTCTime or GeneralizedTime) as seconds since 1970.
    static func seconds(_ time: UnsafePointer<ASN1_STRING>?) -> Int64? {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }

    /// The curve of an EC key (`prime256v1` for P-256), or nil.
    static func groupName(of key: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER `ECDSA-Sig-Value` of a raw r‖s signature (JWS carries r‖s, libcrypto verifies DER).
    static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// HMAC-SHA256 (RFC 2104) of `message` with `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                digest.withUnsafeMutableBufferPointer { digestBytes in
                    HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress,
                         messageBytes.count, digestBytes.baseAddress, &length)
                }
            }
        }
        // HMAC fails only without memory; an all-zero digest would then be wrong for every input alike.
        precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(takeError())")
        return digest
    }
}
