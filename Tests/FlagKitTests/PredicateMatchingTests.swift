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
    }
}
