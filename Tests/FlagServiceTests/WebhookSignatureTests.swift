import FlagKit
import FlagServiceTestSupport
import Testing
@testable import FlagService

/// `Symi-Webhook-Signature`: the header a receiver verifies, against vectors computed with Python's `hmac`.
@Suite struct WebhookSignatureTests {
    static let body = Array("{\"id\":\"evt_1\"}\n".utf8)

    @Test func matchesAVectorComputedWithPythonsHmac() {
        // python3 -c 'import hmac,hashlib; print(hmac.new(b"whsec_test", b"1772319600." + b"{\"id\":\"evt_1\"}\n", hashlib.sha256).hexdigest())'
        #expect(WebhookSignature.header(secret: "whsec_test", timestamp: 1_772_319_600, body: Self.body)
            == "t=1772319600,v1=d4cb21cc2ddc1e9b68973091d4a352ccea25d0313fc2d22ecd6a38b0728f2cd1")
        let german = Array("{\"data\":{\"message\":\"Preisänderung\"}}".utf8)
        #expect(WebhookSignature.header(secret: "whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH", timestamp: 1_700_000_000, body: german)
            == "t=1700000000,v1=cbd8f85c291280de5d33f7a26bacd78daa7ad05f92c5ebc6124ca264c673c715", "UTF-8 bodies: the bytes are signed")
    }

    @Test func isTheHMACOfTheTimestampADotAndTheBody() {
        let header = WebhookSignature.header(secret: "k", timestamp: 42, body: [1, 2, 3])
        #expect(WebhookSignature.signedBytes(timestamp: 42, body: [1, 2, 3]) == Array("42.".utf8) + [1, 2, 3])
        #expect(header == "t=42,v1=" + HMACSHA256.hexAuthenticationCode(key: Array("k".utf8), message: Array("42.".utf8) + [1, 2, 3]))
    }

    @Test func verifiesAValidSignatureWithinTheTolerance() {
        let header = WebhookSignature.header(secret: "whsec_test", timestamp: 1000, body: Self.body)
        #expect(WebhookSignature.isValid(header: header, body: Self.body, secret: "whsec_test", now: 1000))
        #expect(WebhookSignature.isValid(header: header, body: Self.body, secret: "whsec_test", now: 1300), "five minutes late")
        #expect(!WebhookSignature.isValid(header: header, body: Self.body, secret: "whsec_test", now: 1301), "a replay")
        #expect(!WebhookSignature.isValid(header: header, body: Self.body, secret: "whsec_test", now: 699), "from the future")
    }

    @Test func refusesAnotherSecretBodyOrTimestampAndMalformedHeaders() {
        let header = WebhookSignature.header(secret: "whsec_test", timestamp: 1000, body: Self.body)
        #expect(!WebhookSignature.isValid(header: header, body: Self.body, secret: "whsec_other", now: 1000))
        #expect(!WebhookSignature.isValid(header: header, body: Self.body + [0x20], secret: "whsec_test", now: 1000))
        let moved = header.replacingOccurrences(of: "t=1000", with: "t=1001")
        #expect(!WebhookSignature.isValid(header: moved, body: Self.body, secret: "whsec_test", now: 1000), "t is signed too")
        for broken in ["", "t=1000", "v1=00", "t=x," + header.split(separator: ",")[1], header.uppercased()] {
            #expect(!WebhookSignature.isValid(header: broken, body: Self.body, secret: "whsec_test", now: 1000), "\(broken)")
        }
        // A later scheme may be sent beside v1: an unknown part, or a second v1, does not spoil a valid one.
        #expect(WebhookSignature.isValid(header: "v0=abc," + header + ",v1=" + String(repeating: "0", count: 64),
                                         body: Self.body, secret: "whsec_test", now: 1000))
    }
}
