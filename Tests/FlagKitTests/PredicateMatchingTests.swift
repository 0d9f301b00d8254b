import Testing
@testable import FlagKit

/// Every operator on every kind of attribute, through real documents.
@Suite struct PredicateMatchingTests {
    private func member(_ condition: String, _ context: EvaluationContext) throws -> Bool {
        let document = try FlagDocument.decode(#"{"flags": {}, "cohorts": {"c": \#(condition)}}"#)
        return document.isMember(context, of: "c")
    }

    @Test func stringOperators() throws {
        let de = EvaluationContext(locale: "de-DE", country: "DE")
        #expect(try member(#"{"country": {"eq": "DE"}}"#, de))
        #expect(try !member(#"{"country": {"eq": "de"}}"#, de), "case-sensitive")
        #expect(try member(#"{"country": {"ne": "AT"}}"#, de))
        #expect(try !member(#"{"country": {"ne": "DE"}}"#, de))
        #expect(try member(#"{"country": {"in": ["AT", "DE"]}}"#, de))
        #expect(try !member(#"{"country": {"notIn": ["AT", "DE"]}}"#, de))
        #expect(try member(#"{"country": {"notIn": ["AT"]}}"#, de))
        #expect(try member(#"{"locale": {"startsWith": "de"}}"#, de))
        #expect(try member(#"{"locale": {"endsWith": "-DE"}}"#, de))
        #expect(try member(#"{"locale": {"contains": "e-D"}}"#, de))
        #expect(try !member(#"{"locale": {"contains": "en"}}"#, de))
        #expect(try member(#"{"locale": {"gt": "ca", "lt": "da"}}"#, EvaluationContext(locale: "ch")))
        #expect(try member(#"{"locale": {"gte": "de-DE", "lte": "de-DE"}}"#, de))
    }

    @Test func absentAttributesMatchOnlyExistsFalse() throws {
        let empty = EvaluationContext()
        for condition in [#"{"country": {"eq": "DE"}}"#, #"{"country": {"ne": "DE"}}"#, #"{"country": {"notIn": ["DE"]}}"#,
                          #"{"country": {"startsWith": ""}}"#, #"{"appVersion": {"lt": "9.0"}}"#, #"{"country": {"exists": true}}"#] {
            #expect(try !member(condition, empty), "\(condition)")
        }
        #expect(try member(#"{"country": {"exists": false}}"#, empty))
        #expect(try member(#"{"country": {"exists": true}}"#, EvaluationContext(country: "")))
    }

    @Test func versionAttributesCompareBySemVer() throws {
        func app(_ version: String) -> EvaluationContext { EvaluationContext(appVersion: version) }
        #expect(try member(#"{"appVersion": {"gte": "2.4.0"}}"#, app("2.10")), "2.10 > 2.4 numerically, not as text")
        #expect(try member(#"{"appVersion": {"eq": "2.4"}}"#, app("2.4.0")))
        #expect(try member(#"{"appVersion": {"in": ["2.4", "3"]}}"#, app("3.0.0")))
        #expect(try !member(#"{"appVersion": {"gte": "2.4.0"}}"#, app("2.4.0-beta.1")), "a pre-release sorts before its release")
        #expect(try member(#"{"appVersion": {"lt": "2.4.0"}}"#, app("2.4.0-rc.1")))
        #expect(try member(#"{"appVersion": {"gt": "2.4.0-beta.2"}}"#, app("2.4.0-beta.11")))
        #expect(try member(#"{"osVersion": {"gte": "17", "lt": "18"}}"#, EvaluationContext(osVersion: "17.4.1")))
        #expect(try member(#"{"appVersion": {"ne": "2.4"}}"#, app("2.4.1")))
        #expect(try member(#"{"appVersion": {"notIn": ["2.4"]}}"#, app("2.4.1")))
        #expect(try !member(#"{"appVersion": {"gte": "1.0"}}"#, app("not a version")), "unparsable versions never match")
        #expect(try !member(#"{"appVersion": {"ne": "1.0"}}"#, app("garbage")))
        #expect(try member(#"{"appVersion": {"startsWith": "2."}}"#, app("2.4")), "string operators see the text")
    }

    @Test func instantsCompareStrictlyToTheMillisecondWhateverTheOffset() throws {
        func installed(_ date: String) -> EvaluationContext { EvaluationContext(firstInstallDate: date) }
        let before = #"{"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}}"#
        let after = #"{"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}"#
        #expect(try member(before, installed("2027-02-28T23:59:59.999Z")))
        #expect(try !member(before, installed("2027-03-01T00:00:00Z")), "strict: the instant itself is not before")
        #expect(try !member(after, installed("2027-03-01T00:00:00Z")), "strict: nor after")
        #expect(try member(after, installed("2027-03-01T00:00:00.001Z")))
        #expect(try !member(after, installed("2027-03-01T01:00:00+01:00")), "the same instant in another offset")
        #expect(try member(before, installed("2027-03-01T00:59:59.999+01:00")))
        #expect(try member(after, installed("2027-02-28T19:00:00.001-05:00")))
        #expect(try !member(after, installed("2027-03-01T00:00:00.000999Z")), "digits past the millisecond are dropped")
        #expect(try member(#"{"firstInstallDate": {"after": "2027-02-28T23:00:00-01:00"}}"#, installed("2027-03-01T00:00:00.001Z")),
                "the operand's offset counts too")
        #expect(try member(#"{"firstInstallDate": {"after": "2026-01-01T00:00:00Z", "before": "2027-01-01T00:00:00Z"}}"#,
                           installed("2026-06-30T12:00:00Z")))
        // On a custom attribute (parsed once per context); anything but an RFC 3339 string matches neither.
        let trial = #"{"trialStartedAt": {"before": "2027-01-01T00:00:00Z"}}"#
        #expect(try member(trial, EvaluationContext(custom: ["trialStartedAt": "2026-05-01T10:00:00+02:00"])))
        #expect(try !member(trial, EvaluationContext(custom: ["trialStartedAt": "May 2026"])))
        #expect(try !member(trial, EvaluationContext(custom: ["trialStartedAt": 1_777_622_400_000])))
    }

    /// The early-user safety rule: an install whose date is unknown (absent, or sent as something that is not an
    /// RFC 3339 date-time) is never before and never after anything; only `exists: false` takes it in.
    @Test func anUnknownInstallDateIsNeverBeforeOrAfterAnything() throws {
        let unknown = [EvaluationContext(installId: "i"), EvaluationContext(installId: "i", firstInstallDate: "2027-03-01"),
                       EvaluationContext(installId: "i", firstInstallDate: ""), EvaluationContext(attributes: ["firstInstallDate": 0])]
        for context in unknown {
            for condition in [#"{"firstInstallDate": {"before": "9999-12-31T23:59:59Z"}}"#, #"{"firstInstallDate": {"after": "0001-01-01T00:00:00Z"}}"#,
                              #"{"firstInstallDate": {"exists": true}}"#] {
                #expect(try !member(condition, context), "\(condition) for \(context)")
            }
            #expect(try member(#"{"firstInstallDate": {"exists": false}}"#, context))
        }
        let document = try FlagDocument.decode("""
        {"flags": {"premiumFeaturesLocked": {"type": "boolean", "default": false, "rules": [
           {"cohort": "earlyUsers", "value": false}, {"cohort": "installedSinceSwitch", "value": true}]}},
         "cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                     "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}}}
        """)
        for context in unknown {
            let result = document.evaluate("premiumFeaturesLocked", context: context)
            #expect(result.value == false && result.reason == .defaultValue, "an unknown date never locks: \(context)")
        }
        #expect(document.evaluate("premiumFeaturesLocked", context: EvaluationContext(firstInstallDate: "2027-03-02T00:00:00Z")).value == true)
    }

    @Test func customAttributesOfEveryJSONKind() throws {
        let context = EvaluationContext(custom: ["entries": 42, "ratio": 0.5, "pro": true, "plan": "family"])
        #expect(try member(#"{"entries": {"gt": 41, "lte": 42}}"#, context))
        #expect(try member(#"{"entries": {"eq": 42.0}}"#, context), "numbers compare numerically")
        #expect(try member(#"{"ratio": {"lt": 1, "gte": 0.5}}"#, context))
        #expect(try member(#"{"pro": {"eq": true}}"#, context))
        #expect(try !member(#"{"pro": {"eq": "true"}}"#, context), "no coercion between types")
        #expect(try !member(#"{"entries": {"gt": "41"}}"#, context))
        #expect(try member(#"{"plan": {"in": ["family", 3, false]}}"#, context))
    }

    @Test func combinatorsAndReferences() throws {
        let document = try FlagDocument.decode("""
        {"flags": {}, "cohorts": {
          "german": {"any": [{"locale": {"startsWith": "de"}}, {"country": {"in": ["DE", "AT", "CH"]}}]},
          "nonGermanBeta": {"cohort": "beta", "not": {"cohort": "german"}},
          "beta": {"channel": {"eq": "testflight"}},
          "nobody": {"any": []},
          "everybody": {"all": []},
          "both": {"all": [{"cohort": "beta"}, {"cohort": "german"}]}
        }}
        """)
        let germanBeta = EvaluationContext(locale: "en-US", country: "AT", channel: "testflight")
        let englishBeta = EvaluationContext(locale: "en-GB", country: "GB", channel: "testflight")
        #expect(document.isMember(germanBeta, of: "german"))
        #expect(!document.isMember(englishBeta, of: "german"))
        #expect(document.isMember(englishBeta, of: "nonGermanBeta"))
        #expect(!document.isMember(germanBeta, of: "nonGermanBeta"))
        #expect(document.isMember(germanBeta, of: "both"))
        #expect(!document.isMember(englishBeta, of: "nobody"))
        #expect(document.isMember(englishBeta, of: "everybody"))
        #expect(!document.isMember(englishBeta, of: "undefined"))
    }

    @Test func contextFromFlatAttributes() {
        let context = EvaluationContext(attributes: ["targetingKey": "id-1", "appVersion": "2.4", "locale": 5, "plan": "pro"])
        #expect(context.installId == "id-1")
        #expect(context.appVersion == "2.4")
        #expect(context.locale == nil)
        #expect(context.custom == ["locale": 5, "plan": "pro"])
        #expect(context.attribute("locale") == 5, "a non-string built-in attribute is still visible to conditions")
    }

    @Test func nonStringBuiltInAttributesStillMatch() throws {
        #expect(try member(#"{"installId": {"eq": 123}}"#, EvaluationContext(attributes: ["installId": 123])))
        #expect(try !member(#"{"installId": {"eq": 123}}"#, EvaluationContext(attributes: ["installId": "123"])))
    }
}
