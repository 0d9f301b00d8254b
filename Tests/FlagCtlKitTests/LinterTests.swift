import FlagKit
import Testing
@testable import FlagCtlKit

/// The review rules on small documents, rule by rule.
@Suite struct LinterTests {
    private func findings(_ json: String) -> [LintFinding] { Linter.lint(Array(json.utf8)) }

    private func copyFindings(_ text: String) -> [String] {
        findings(TestSupport.cleanDocument(introMessage: text)).map(\.rule.rawValue)
    }

    @Test func everyPatternCompiles() {
        #expect(Linter.compile(Linter.pricePatterns).count == Linter.pricePatterns.count)
        #expect(Linter.compile(Linter.foreverFreePatterns).count == Linter.foreverFreePatterns.count)
    }

    @Test(arguments: ["flags/production.json", "flags/staging.json"])
    func symisOwnFlagsHaveNoFindings(file: String) throws {
        #expect(Linter.lint(try TestSupport.bytes(file)) == [])
    }

    @Test func cleanFixtureHasNoFindings() {
        #expect(findings(TestSupport.cleanDocument()) == [])
    }

    @Test(arguments: ["Nur 2,99 € im Monat", "Jetzt für €2.99", "only $3", "3 EUR pro Monat", "USD 4.99 per month", "CHF 5.-",
                      "9,99\u{00A0}€/Monat", "12.99 usd", "1.299,00 EUR", "US$3", "£1", "5 Franken", "99 cents", "4,99€",
                      "EUR2.99", "2.99EUR", "4,99Euro", "ab 3 Fr.", "€ 2,99"])
    func hardCodedPrices(text: String) {
        #expect(copyFindings(text) == ["no-hardcoded-price"], "\(text)")
    }

    @Test(arguments: ["Bezahlt wird in Euro", "nur 2,99 im Monat", "Preis: €", "billed in USD", "4.99 a month", "Dollars"])
    func amountsAndCurrenciesAlone(text: String) {
        #expect(copyFindings(text) == ["no-hardcoded-price"], "\(text)")
        #expect(findings(TestSupport.cleanDocument(introMessage: text)).first?.message.hasPrefix("amount or currency") == true)
    }

    @Test(arguments: ["Symi ist aktuell für kurze Zeit kostenlos.", "Version 2.4.0", "100% deiner Daten", "3 Einträge pro Tag",
                      "Lost 5 pounds", "CT scan 2 times", "Free for a limited time", "Für kurze Zeit gratis",
                      "Europa 2024", "3 Eurythmie-Kurse", "Always there for you. Free for now."])
    func noPriceFalseAlarms(text: String) {
        #expect(copyFindings(text) == [], "\(text)")
    }

    @Test(arguments: ["Für immer gratis!", "für immer kostenlos", "Symi bleibt immer kostenlos", "dauerhaft kostenlos", "FOREVER FREE",
                      "free forever", "Always free", "free, forever", "für immer komplett kostenlos", "kostenlos für immer",
                      "fuer immer gratis", "lifetime free access", "free for life", "You will never pay", "lebenslang gratis",
                      "f\u{0075}\u{0308}r immer gratis", "permanently free", "Free. Forever.", "kostenlos – für immer"])
    func foreverFreeClaims(text: String) {
        #expect(copyFindings(text) == ["no-forever-free"], "\(text)")
    }

    @Test func foreverFreeOnlyWhileMonetizationFlagsExist() {
        let document = """
        {"flags": {"greeting": {"type": "string", "default": "Für immer gratis"},
                   "legalLinks": {"type": "json", "default": {"privacyPolicyURL": "https://a.example/p", "termsOfUseURL": "https://a.example/t"}}}}
        """
        #expect(findings(document) == [])
    }

    @Test func copyInsideRulesAndNestedJSONIsFoundWithItsPath() {
        let document = TestSupport.cleanDocument(premium: #"""
        {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}},
        "screen": {"type": "json", "default": {"buttons": ["ok"]}, "rules": [{"cohort": "beta", "value": {"buttons": ["Nur 2,99 €"]}}]}
        """#)
        #expect(findings(document) == [LintFinding(flag: "screen", rule: .hardCodedPrice, path: "/flags/screen/rules/0/value/buttons/0",
                                                   message: #"hard-coded price "2,99 €": show the price from StoreKit instead (brief section 9)"#)])
    }

    @Test func descriptionsAreNotCopy() {
        let document = TestSupport.cleanDocument(premium: #"""
        {"type": "boolean", "description": "never promise forever free or 2,99 €", "default": false, "requires": {"monetizationEnabled": true}}
        """#)
        #expect(findings(document) == [])
    }

    @Test func legalLinks() {
        #expect(findings(TestSupport.cleanDocument(legalLinks: nil)).map(\.path) == ["/flags/legalLinks"])
        let http = #"{"type": "json", "default": {"privacyPolicyURL": "http://symi.app/p", "termsOfUseURL": "https://symi.app/t"}}"#
        #expect(findings(TestSupport.cleanDocument(legalLinks: http)).map(\.description)
                == [#"/flags/legalLinks/default/privacyPolicyURL: [legal-links] flag legalLinks: "http://symi.app/p" must use https (got http)"#])
        let missingInRule = #"""
        {"type": "json", "default": {"privacyPolicyURL": "https://symi.app/p", "termsOfUseURL": "https://symi.app/t"},
         "rules": [{"cohort": "beta", "value": {"privacyPolicyURL": "https://symi.app/p"}}, {"value": "https://symi.app"}]}
        """#
        #expect(findings(TestSupport.cleanDocument(legalLinks: missingInRule)).map(\.path)
                == ["/flags/legalLinks/rules/0/value/termsOfUseURL", "/flags/legalLinks/rules/1/value"])
        let noHost = #"{"type": "json", "default": {"privacyPolicyURL": "https:///p", "termsOfUseURL": 7}}"#
        #expect(findings(TestSupport.cleanDocument(legalLinks: noHost)).map(\.message)
                == [#""https:///p" has no host"#, "must be an https URL string (got integer)"])
    }

    @Test func premiumLockWithoutPrerequiteWhereMonetizationCanBeFalse() {
        let monetization = #"{"type": "boolean", "default": true, "rules": [{"cohort": "nonEU", "value": false}]}"#
        let premium = #"{"type": "boolean", "default": false, "rules": [{"cohort": "internal", "value": true}, {"cohort": "beta", "value": false}]}"#
        let result = findings(TestSupport.cleanDocument(premium: premium, monetization: monetization))
        #expect(result.map(\.path) == ["/flags/premiumFeaturesLocked/rules/0"])
        #expect(result.first?.rule == .premiumLockNeedsMonetization)
        #expect(result.first?.message.contains("monetizationEnabled can be false (its rule 0)") == true)
    }

    @Test func premiumLockIsFineWithThePrerequisiteOrWhenMonetizationIsTrueForEveryone() {
        let monetization = #"{"type": "boolean", "default": false, "rules": [{"value": true}]}"#
        let unguarded = #"{"type": "boolean", "default": true, "rules": [{"cohort": "internal", "value": true}]}"#
        #expect(findings(TestSupport.cleanDocument(premium: unguarded, monetization: monetization)) == [])
        let falseDefault = #"{"type": "boolean", "default": false}"#
        #expect(findings(TestSupport.cleanDocument(premium: unguarded, monetization: falseDefault)).map(\.path)
                == ["/flags/premiumFeaturesLocked/rules/0", "/flags/premiumFeaturesLocked/default"])
        let guarded = #"{"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"value": true}]}"#
        #expect(findings(TestSupport.cleanDocument(premium: guarded, monetization: falseDefault)) == [])
    }

    @Test func guardedButDefaultTrueStillLocksWhereMonetizationIsFalse() {
        let premium = #"{"type": "boolean", "default": true, "requires": {"monetizationEnabled": true}}"#
        let monetization = #"{"type": "boolean", "default": true, "rules": [{"cohort": "beta", "value": false, "rollout": 10}]}"#
        #expect(findings(TestSupport.cleanDocument(premium: premium, monetization: monetization)).map(\.path)
                == ["/flags/premiumFeaturesLocked/default"])
    }

    @Test func monetizationCoverageFollowsCohortImplication() throws {
        let document = try FlagDocument.decode(#"""
        {"flags": {"monetizationEnabled": {"type": "boolean", "default": false, "rules": [{"cohort": "testers", "value": true}]},
                   "premiumFeaturesLocked": {"type": "boolean", "default": false, "rules": [{"cohort": "betaTesters", "value": true},
                                                                                        {"cohort": "named", "value": true}]}},
         "cohorts": {"testers": {"channel": {"in": ["testflight"]}},
                     "betaTesters": {"channel": {"in": ["testflight"]}, "appVersion": {"gte": "2.4"}},
                     "named": {"cohort": "testers", "locale": {"eq": "de"}}}}
        """#)
        #expect(Linter.premiumLockFindings(in: document) == [])
        #expect(Linter.nonTrueMonetization(forCohort: nil, in: document) == "monetizationEnabled can be false (its default)")
    }

    @Test func prerequisiteThroughAnotherGuardedFlagCounts() throws {
        let document = try FlagDocument.decode(#"""
        {"flags": {"monetizationEnabled": {"type": "boolean", "default": false},
                   "paywallReady": {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"value": true}]},
                   "premiumFeaturesLocked": {"type": "boolean", "default": false, "requires": {"paywallReady": true}, "rules": [{"value": true}]}}}
        """#)
        #expect(Linter.isGuarded("premiumFeaturesLocked", in: document, depth: 0))
        #expect(Linter.premiumLockFindings(in: document) == [])
    }

    @Test func invalidDocumentsReportTheirProblemsAsFindings() {
        let result = findings(#"{"flags": {"x": {"type": "boolean", "default": 3}}}"#)
        #expect(result == [LintFinding(flag: "x", rule: .validDocument, path: "/flags/x/default",
                                       message: "must be of the flag's type boolean (got integer 3)")])
        #expect(findings("{").map(\.rule) == [.validDocument])
    }
}
