import Foundation

/// What a notification must match to be accepted: the trusted roots, the app, the environments.
public struct AppStoreVerifierConfiguration: Sendable {
    /// The trusted root certificates, DER (Apple Root CA - G3 in production). The root a notification sends in
    /// its `x5c` is never trusted by itself: the chain must lead to one of these.
    public var rootCertificates: [[UInt8]]
    /// The app's bundle identifier (`bundleId`).
    public var bundleID: String
    /// The app's Apple ID (`appAppleId`); required when `environments` contains `.production`, as in Apple's
    /// libraries (sandbox notifications may carry none).
    public var appAppleID: Int64?
    /// The environments accepted.
    public var environments: Set<AppStoreEnvironment>

    /// A configuration; `SignedPayloadVerifier.init` checks it.
    public init(rootCertificates: [[UInt8]], bundleID: String, appAppleID: Int64?,
                environments: Set<AppStoreEnvironment>) {
        self.rootCertificates = rootCertificates
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environments = environments
    }

    /// The DER certificates in a file's bytes: one or several PEM `CERTIFICATE` blocks (RFC 7468 §5), or one DER
    /// certificate (Apple publishes `AppleRootCA-G3.cer` as DER). Each must be a certificate libcrypto parses.
    public static func certificates(fromFile bytes: [UInt8]) throws(AppStoreVerificationError) -> [[UInt8]] {
        let beginMarker = "-----BEGIN CERTIFICATE-----"
        let endMarker = "-----END CERTIFICATE-----"
        let text = String(decoding: bytes, as: UTF8.self)
        var certificates: [[UInt8]] = []
        if text.contains("-----BEGIN ") {
            var rest = Substring(text)
            while let begin = rest.range(of: beginMarker) {
                guard let end = rest.range(of: endMarker, range: begin.upperBound..<rest.endIndex) else {
                    throw AppStoreVerificationError(.invalidRootCertificate, "PEM block \(certificates.count + 1) has no END line")
                }
                let base64 = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
                guard let der = Data(base64Encoded: String(base64)) else {
                    throw AppStoreVerificationError(.invalidRootCertificate, "PEM block \(certificates.count + 1) is not base64")
                }
                certificates.append([UInt8](der))
                rest = rest[end.upperBound...]
            }
            guard !certificates.isEmpty else {
                throw AppStoreVerificationError(.invalidRootCertificate, "PEM without a CERTIFICATE block")
            }
        } else {
            certificates = [bytes]
        }
        for (index, der) in certificates.enumerated() {
            do throws(AppStoreVerificationError) {
                _ = try X509Certificate(der: der)
            } catch {
                throw AppStoreVerificationError(.invalidRootCertificate, "certificate \(index + 1): \(error.detail)")
            }
        }
        return certificates
    }
}
