import Foundation

/// A throw-away certificate chain shaped like Apple's (root → intermediate → leaf, P-256 keys, ECDSA with SHA-256, the
/// marker extensions on the leaf and the intermediate), with knobs for each tampered form. The leaf's key signs
/// through `AppStoreTestSigner`.
package struct AppStoreTestCA: Sendable {
    /// A certificate's validity, seconds since 1970.
    package struct Validity: Sendable {
        /// notBefore.
        package var notBefore: Int64
        /// notAfter.
        package var notAfter: Int64

        /// A validity window.
        package init(notBefore: Int64, notAfter: Int64) {
            self.notBefore = notBefore
            self.notAfter = notAfter
        }

        /// 2000-01-01 to 2099-12-31: any date a test or a replay signs at.
        package static let wide = Validity(notBefore: 946_684_800, notAfter: 4_102_358_400)
    }

    /// What to build (the defaults are Apple's shape).
    package struct Options: Sendable {
        /// The leaf carries 1.2.840.113635.100.6.11.1.
        package var leafMarker = true
        /// The intermediate carries 1.2.840.113635.100.6.2.1.
        package var intermediateMarker = true
        /// Each certificate's validity.
        package var rootValidity = Validity.wide
        /// The intermediate's validity.
        package var intermediateValidity = Validity.wide
        /// The leaf's validity.
        package var leafValidity = Validity.wide

        /// Apple's shape, valid 2000-2099.
        package init() {}
    }

    /// Apple's marker OIDs.
    package static let leafMarker = "1.2.840.113635.100.6.11.1"
    /// The intermediate's marker OID.
    package static let intermediateMarker = "1.2.840.113635.100.6.2.1"

    /// The root, DER (what a verifier is configured with).
    package let rootDER: [UInt8]
    /// The intermediate, DER.
    package let intermediateDER: [UInt8]
    /// The leaf, DER.
    package let leafDER: [UInt8]
    /// The leaf's private key.
    let leafKey: TestECKey

    /// A new chain with fresh keys (a few milliseconds).
    package init(_ options: Options = Options()) throws(AppStoreTestSupportError) {
        let rootKey = try TestECKey(), intermediateKey = try TestECKey(), leafKey = try TestECKey()
        let serial = Int.random(in: 1...Int(Int32.max))
        rootDER = try TestCrypto.certificate(
            TestCertificateSpec(commonName: "Symi Test Root CA", serial: serial, notBefore: options.rootValidity.notBefore,
                                notAfter: options.rootValidity.notAfter, isCA: true, markers: []),
            key: rootKey, issuer: nil)
        intermediateDER = try TestCrypto.certificate(
            TestCertificateSpec(commonName: "Symi Test Worldwide Developer Relations", serial: serial + 1,
                                notBefore: options.intermediateValidity.notBefore,
                                notAfter: options.intermediateValidity.notAfter, isCA: true,
                                markers: options.intermediateMarker ? [Self.intermediateMarker] : []),
            key: intermediateKey, issuer: (rootDER, rootKey))
        leafDER = try TestCrypto.certificate(
            TestCertificateSpec(commonName: "Symi Test App Store Signing", serial: serial + 2,
                                notBefore: options.leafValidity.notBefore, notAfter: options.leafValidity.notAfter,
                                isCA: false, markers: options.leafMarker ? [Self.leafMarker] : []),
            key: leafKey, issuer: (intermediateDER, intermediateKey))
        self.leafKey = leafKey
    }

    /// The root as PEM (RFC 7468 §5).
    package var rootPEM: String { Self.pem(rootDER) }

    /// A DER certificate as PEM.
    package static func pem(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<end]))
            index = end
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// How `writeRoot` writes the root.
    package enum FileFormat: Sendable { case pem, der }

    /// Writes the root to `path` (what `--appstore-root-certificate` reads).
    package func writeRoot(to path: String, format: FileFormat = .pem) throws {
        let bytes = format == .pem ? Array(rootPEM.utf8) : rootDER
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
