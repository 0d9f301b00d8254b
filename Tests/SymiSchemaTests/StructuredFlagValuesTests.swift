import FlagKit
import Foundation
import Testing
@testable import SymiSchema

/// Structured flag values (``SubscriptionScreenCopy``, ``LegalLinks``): accepted shapes and refusals.
@Suite struct StructuredFlagValuesTests {
    static let copy: JSONValue = [
        "headline": "H", "subline": "S", "activationMessage": "A", "futurePricingNotice": "F", "restoreHint": "R",
        "activateFreeButton": "B", "restorePurchasesButton": "P", "benefits": ["one", "two"],
    ]

    @Test func copyDecodes() {
        let copy = SubscriptionScreenCopy(json: Self.copy)
        #expect(copy?.headline == "H" && copy?.benefits == ["one", "two"])
    }

    @Test(arguments: ["headline", "subline", "activationMessage", "futurePricingNotice", "restoreHint",
                      "activateFreeButton", "restorePurchasesButton", "benefits"])
    func copyMissingAMemberIsRefused(member: String) {
        guard case .object(var object) = Self.copy else { return }
        object.removeValue(forKey: member)
        #expect(SubscriptionScreenCopy(json: .object(object)) == nil)
        object[member] = 5
        #expect(SubscriptionScreenCopy(json: .object(object)) == nil)
    }

    @Test func benefitsMustAllBeStrings() {
        guard case .object(var object) = Self.copy else { return }
        object["benefits"] = ["one", 2]
        #expect(SubscriptionScreenCopy(json: .object(object)) == nil)
        #expect(SubscriptionScreenCopy(json: "text") == nil)
    }

    @Test func linksMustBeHTTPSWithAHost() {
        let good = LegalLinks(json: ["privacyPolicyURL": "https://symi.app/p", "termsOfUseURL": "HTTPS://symi.app/t"])
        #expect(good?.privacyPolicy.absoluteString == "https://symi.app/p")
        for bad in ["http://symi.app/p", "javascript:alert(1)", "https:///nohost", "", "symi.app/p"] {
            #expect(LegalLinks(json: ["privacyPolicyURL": .string(bad), "termsOfUseURL": "https://symi.app/t"]) == nil, "\(bad)")
        }
        #expect(LegalLinks(json: ["privacyPolicyURL": "https://symi.app/p"]) == nil)
        #expect(LegalLinks(json: [1]) == nil)
    }
}
