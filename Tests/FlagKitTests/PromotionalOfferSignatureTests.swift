import Testing
@testable import FlagKit

@Suite struct PromotionalOfferSignatureTests {
    static let members: [String: JSONValue] = [
        "product": "symi_plus_monthly_499", "offer": "winback_50", "keyID": "ABCDEF1234",
        "nonce": "3f2c8e1a-5b7d-4c9e-8a1f-0123456789ab", "timestamp": .integer(1_796_000_000_000),
        "signature": "MEUCIQDdV9y3c+1n/zvY5b8yq0Lhj3e5XUwQ0aLgkR1ZnZzvQwIgS0f1Yk2Xn3z7Q9h0a8R1c2d3e4f5g6h7i8j9k0l1m2o=",
    ]

    @Test func theServersMembersReadBackAsTheyWereSent() throws {
        let signature = try PromotionalOfferSignature(validating: Self.members)
        #expect(signature.product == "symi_plus_monthly_499" && signature.offer == "winback_50" && signature.appAccountToken == nil)
        #expect(signature.members == Self.members, "appAccountToken left out when there is none")
        var withToken = Self.members
        withToken["appAccountToken"] = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
        withToken["servedBy"] = "node-2"
        let tokened = try PromotionalOfferSignature(validating: withToken)
        #expect(tokened.appAccountToken == "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", "an unknown member is ignored")
        withToken["servedBy"] = nil
        #expect(tokened.members == withToken)
    }

    @Test func aMalformedAnswerNamesItsMember() {
        let cases: [(String, JSONValue?, String)] = [
            ("product", nil, "/product"),
            ("offer", "", "/offer"),
            ("keyID", .integer(7), "/keyID"),
            ("nonce", "3F2C8E1A-5B7D-4C9E-8A1F-0123456789AB", "/nonce"),
            ("nonce", "3f2c8e1a5b7d4c9e8a1f0123456789ab", "/nonce"),
            ("timestamp", .number(1.5), "/timestamp"),
            ("timestamp", .integer(0), "/timestamp"),
            ("signature", "not base64!", "/signature"),
            ("signature", "QUJD", "/nothing"),
            ("appAccountToken", "someone@example.com", "/appAccountToken"),
        ]
        for (name, value, path) in cases {
            var members = Self.members
            members[name] = value
            do {
                _ = try PromotionalOfferSignature(validating: members)
                #expect(path == "/nothing", "\(name) = \(String(describing: value)) was accepted")
            } catch {
                guard case .notAnEnvelope(let reported, _) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(reported == path, "\(name)")
            }
        }
    }

    @Test func aSignatureIsUsableForAppleDayLessTheMargin() throws {
        let signature = try PromotionalOfferSignature(validating: Self.members)
        let signed = signature.timestamp
        #expect(signature.isUsable(at: signed))
        #expect(signature.isUsable(at: signed + 22 * 3_600_000))
        #expect(!signature.isUsable(at: signed + 23 * 3_600_000), "Apple accepts 24 hours; an hour is left for the sheet")
        #expect(!signature.isUsable(at: signed - 2 * 3_600_000), "a clock far behind the server's")
        #expect(PromotionalOfferSignature.isBase64("AA==") && PromotionalOfferSignature.isBase64("AAA=") && !PromotionalOfferSignature.isBase64("A==="))
        #expect(!PromotionalOfferSignature.isBase64("AA-_"), "base64url is not what Apple's signature format uses")
    }
}
