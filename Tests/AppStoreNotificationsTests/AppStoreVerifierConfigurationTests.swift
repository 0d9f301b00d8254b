import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// The root certificate files `--appstore-root-certificate` reads: PEM with one or several certificates, or DER.
@Suite struct AppStoreVerifierConfigurationTests {
    @Test func aDERFileIsOneCertificate() throws {
        let ca = try AppStoreTestCA()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("AppleRootCA-G3.cer").path
        try ca.writeRoot(to: path, format: .der)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try AppStoreVerifierConfiguration.certificates(fromFile: bytes) == [ca.rootDER])
    }

    @Test func aPEMFileMayHoldSeveralCertificates() throws {
        let first = try AppStoreTestCA(), second = try AppStoreTestCA()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("root.pem").path
        try first.writeRoot(to: path, format: .pem)
        let one = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try AppStoreVerifierConfiguration.certificates(fromFile: one) == [first.rootDER])
        // Text around and between blocks (as `openssl x509 -text` writes) and CRLF line ends are fine.
        let two = "Subject: first\r\n" + first.rootPEM.replacingOccurrences(of: "\n", with: "\r\n") + "\nsecond:\n"
            + second.rootPEM
        let roots = try AppStoreVerifierConfiguration.certificates(fromFile: Array(two.utf8))
        #expect(roots == [first.rootDER, second.rootDER])
        // What was read verifies what the chain signs.
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: roots, bundleID: "app.symi.journal", appAppleID: 6_450_000_001, environments: [.production]))
        let body = try AppStoreTestNotification().body(AppStoreTestSigner(ca: second))
        #expect(try verifier.verifyNotificationBody(body).notificationType == "SUBSCRIBED")
    }

    @Test(arguments: [
        "", "not a certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        "-----BEGIN CERTIFICATE-----\n%%%%\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nMIIB\n",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    ])
    func whatIsNotACertificateIsRefused(text: String) {
        let error = #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifierConfiguration.certificates(fromFile: Array(text.utf8))
        }
        #expect(error?.reason == .invalidRootCertificate)
    }

    @Test func aDERCertificateWithTrailingBytesIsRefused() throws {
        let ca = try AppStoreTestCA()
        #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifierConfiguration.certificates(fromFile: ca.rootDER + [0])
        }
        #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifierConfiguration.certificates(fromFile: Array(ca.rootDER.dropLast()))
        }
    }
}
