import FlagKit
import Testing
@testable import FlagCtlKit

/// The language rules of copy flags and the `{price}` placeholder.
@Suite struct LinterLanguagesTests {
    static let german = #"{"subline": "Erweiterte Funktionen", "monthlyButtonTemplate": "Für {price}/Monat starten"}"#
    static let english = #"{"subline": "Advanced features", "monthlyButtonTemplate": "Start for {price}/month"}"#

    /// The clean fixture plus a `subscriptionPaidCopy` flag with these values.
    static func document(default value: String = german, rules: String = #"[{"cohort": "english", "value": \#(english)}]"#) -> String {
        TestSupport.cleanDocument().replacingOccurrences(
            of: #""monetizationEnabled": "#,
            with: #""subscriptionPaidCopy": {"type": "json", "default": \#(value), "rules": \#(rules)}, "monetizationEnabled": "#)
    }

    func findings(_ json: String) -> [LintFinding] { Linter.lint(Array(json.utf8)) }

    @Test func bothLanguagesAreClean() {
        #expect(findings(Self.document()) == [])
    }

    @Test func aCopyFlagWithoutEnglish() {
        let result = findings(Self.document(rules: "[]"))
        #expect(result.map(\.description) == [
            #"/flags/subscriptionPaidCopy: [copy-languages] flag subscriptionPaidCopy: no English variant for en, en_US, en_GB: add a rule for the english cohort (locale startsWith "en")"#,
        ])
        let stringFlag = TestSupport.cleanDocument().replacingOccurrences(
            of: #", "rules": [{"cohort": "english", "value": "Symi is free for a limited time."}]"#, with: "")
        #expect(findings(stringFlag).map(\.path) == ["/flags/introOfferMessage"])
    }

    @Test func aRuleThatGivesGermanLocalesAnotherText() {
        let rules = #"[{"value": \#(Self.english)}]"#
        #expect(findings(Self.document(rules: rules)).map(\.message) == [
            "German locales (de, de_DE, de_AT, de_CH) must get the German default, but a rule changes it for them",
        ])
    }

    @Test func translationsHaveTheDefaultsMembers() {
        let missing = #"[{"cohort": "english", "value": {"subline": "Advanced features"}}]"#
        #expect(findings(Self.document(rules: missing)).map(\.description) == [
            "/flags/subscriptionPaidCopy/rules/0/value: [copy-languages] flag subscriptionPaidCopy: missing monthlyButtonTemplate, which the default has",
        ])
        let extra = #"[{"cohort": "english", "value": {"subline": "A", "monthlyButtonTemplate": "Start for {price}", "sublin": "B"}}]"#
        #expect(findings(Self.document(rules: extra)).map(\.path) == ["/flags/subscriptionPaidCopy/rules/0/value/sublin"])
        let text = #"[{"cohort": "english", "value": "Advanced features"}]"#
        #expect(findings(Self.document(rules: text)).map(\.message) == ["must be an object like the default (got string)"])
    }

    @Test func templatesKeepTheirPlaceholderInEveryLanguage() {
        let lost = #"[{"cohort": "english", "value": {"subline": "Advanced features", "monthlyButtonTemplate": "Start now"}}]"#
        #expect(findings(Self.document(rules: lost)).map(\.description) == [
            "/flags/subscriptionPaidCopy/rules/0/value/monthlyButtonTemplate: [price-placeholder] flag subscriptionPaidCopy: template without {price}: the button would not show StoreKit's price",
        ])
        let twice = #"{"subline": "Erweiterte Funktionen", "monthlyButtonTemplate": "{price} für {price}"}"#
        #expect(findings(Self.document(default: twice)).map(\.message) == ["template with 2 {price} placeholders; use exactly one"])
        let outside = #"{"subline": "Ab {price}", "monthlyButtonTemplate": "Für {price}/Monat starten"}"#
        #expect(findings(Self.document(default: outside)).map(\.path) == ["/flags/subscriptionPaidCopy/default/subline"])
    }

    @Test func noCopyFlagsNoLanguageFindings() {
        let document = #"{"flags": {"legalLinks": {"type": "json", "default": {"privacyPolicyURL": "https://a.example/p", "termsOfUseURL": "https://a.example/t"}}}}"#
        #expect(findings(document) == [])
    }
}
