import FlagKit
import Testing
@testable import FlagCtlKit

/// The `paywall-product` rule: a string flag whose values the app can show, split without cohorts.
@Suite struct LinterPaywallProductTests {
    /// The clean fixture with `paywallProduct` set to `flag` (JSON).
    func findings(_ flag: String) -> [String] {
        let document = TestSupport.cleanDocument().replacingOccurrences(
            of: #"{"flags": {"#, with: #"{"flags": {"paywallProduct": \#(flag),"#)
        return Linter.lint(Array(document.utf8)).filter { $0.rule == .paywallProduct }.map(\.description)
    }

    @Test func aPriceTestAndNoExperimentAreFine() {
        #expect(findings(#"{"type": "string", "default": ""}"#) == [])
        #expect(findings(#"{"type": "string", "default": "symi_plus_monthly_499", "rules": [{"value": "symi_plus_monthly_399", "rollout": 50}, {"value": "symi_plus_monthly/winback", "rollout": 60}, {"value": "", "rollout": 70}]}"#) == [])
    }

    @Test func whatTheAppCannotShowAndCohortsAreReported() {
        let flag = #"{"type": "string", "default": "symi_plus_monthly_599", "rules": [{"value": "a b", "rollout": 50}, {"cohort": "beta", "value": "symi_plus_monthly_399"}]}"#
        let base = "/flags/paywallProduct"
        #expect(findings(flag) == [
            #"\#(base)/rules/1/cohort: [paywall-product] flag paywallProduct: an experiment splits every install by percentage: a rule for a cohort makes the arms incomparable, and the experiment report refuses the flag"#,
            #"\#(base)/default: [paywall-product] flag paywallProduct: "symi_plus_monthly_599" is not in the product catalogue (SymiCatalog); the app would show subscriptionProductIds"#,
            #"\#(base)/rules/0/value: [paywall-product] flag paywallProduct: "a b" is not "productId" or "productId/offerId"; the app would show subscriptionProductIds"#,
        ])
        #expect(findings(#"{"type": "json", "default": ["symi_plus_monthly_399"]}"#) == [
            "\(base)/type: [paywall-product] flag paywallProduct: must be a string flag (got json); the app would show subscriptionProductIds",
        ])
    }
}
