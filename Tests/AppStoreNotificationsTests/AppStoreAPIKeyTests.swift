import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// The In-App Purchase key file: App Store Connect's `.p8` (PKCS#8 PEM, P-256) is read; anything else is refused with
/// `invalid_key`, never a passphrase prompt.
@Suite struct AppStoreAPIKeyTests {
    static func reason(_ pem: String, keyID: String = "K") -> AppStoreAPIError.Reason? {
        do {
            _ = try AppStoreAPIKey(pem: Array(pem.utf8), keyID: keyID)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aPKCS8P256KeyIsReadAndSigns() throws {
        let testKey = try AppStoreTestAPIKey()
        #expect(testKey.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let key = try AppStoreAPIKey(pem: Array(testKey.privateKeyPEM.utf8), keyID: "K")
        let message = Array("header.claims".utf8)
        #expect(testKey.verifiesES256(signature: try key.signES256(message), of: message))
        // Apple's files end with a newline or not; CRLF line ends also read.
        let crlf = testKey.privateKeyPEM.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(Self.reason(crlf) == nil)
    }

    @Test func whatIsNotAPrivateP256KeyIsRefused() throws {
        let testKey = try AppStoreTestAPIKey()
        #expect(Self.reason("") == .invalidKey)
        #expect(Self.reason("not a key") == .invalidKey)
        #expect(Self.reason(testKey.publicKeyPEM) == .invalidKey)
        #expect(Self.reason(try AppStoreTestCA().rootPEM) == .invalidKey)
        var lines = testKey.privateKeyPEM.split(separator: "\n").map(String.init)
        lines[1] = String(lines[1].reversed())
        #expect(Self.reason(lines.joined(separator: "\n")) == .invalidKey)
        #expect(Self.reason(testKey.privateKeyPEM, keyID: "") == .invalidClaims)
    }
}
