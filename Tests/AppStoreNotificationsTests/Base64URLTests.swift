@testable import AppStoreNotifications
import Testing

/// base64url without padding (RFC 4648 §5, RFC 7515 §2), strictly.
@Suite struct Base64URLTests {
    @Test func base64URLRoundTripsWithoutPadding() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(Substring(text)) == bytes)
        }
    }

    @Test(arguments: ["A", "AB=", "AB==", "a+b/", "ab c", "ab\n", "é", "AB", "AAB", "AAAB="])
    func base64URLRefusesAnythingElse(text: String) {
        #expect(Base64URL.decode(Substring(text)) == nil)
    }
}
