import Testing
@testable import FlagKit

@Suite struct DocumentDecoderTests {
    private func expectIssues(_ json: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(TestSupport.issues(json) == expected, sourceLocation: sourceLocation)
    }

    @Test func decodesTheDesignExample() throws {
        let document = try TestSupport.document("""
        {
          "flags": {
            "premiumFeaturesLocked": {
              "type": "boolean", "description": "d", "default": false,
              "requires": { "monetizationEnabled": true },
              "rules": [ { "cohort": "internal", "value": true }, { "cohort": "beta", "value": true, "rollout": 12.5 } ]
            },
            "monetizationEnabled": { "type": "boolean", "default": true }
          },
          "cohorts": {
            "internal": { "installId": { "in": ["9F1C2D7E-0000-4000-8000-000000000001"] } },
            "beta": { "appVersion": { "gte": "2.4.0" }, "channel": { "in": ["testflight"] } }
          }
        }
        """)
        let flag = try #require(document.flags["premiumFeaturesLocked"])
        #expect(flag.rules == [Rule(cohort: "internal", value: true), Rule(cohort: "beta", value: true, rollout: Rollout(thousandths: 12_500))])
        #expect(flag.requires == ["monetizationEnabled": true])
        #expect(document.cohorts["beta"]?.members.map(\.key) == ["appVersion", "channel"])
    }

    @Test func reportsEveryProblemAtOnceWithItsPath() {
        expectIssues("""
        {
          "flags": {
            "premiumFeaturesLocked": {
              "type": "boolean", "default": "no",
              "rules": [ { "cohort": "ghosts", "value": true }, { "value": true, "rollout": 140 } ],
              "colour": "blue"
            },
            "bad key!": { "type": "text", "default": 1 }
          },
          "extra": 1
        }
        """, [
            "/extra: unknown key (expected one of: cohorts, flags)",
            "/flags/bad key!: flag key must be 1-128 characters of A-Z a-z 0-9 . _ -",
            "/flags/bad key!/type: unknown type \"text\" (expected one of: boolean, string, integer, number, json)",
            "/flags/premiumFeaturesLocked/colour: unknown key (expected one of: default, description, requires, rules, salt, type)",
            "/flags/premiumFeaturesLocked/default: must be of the flag's type boolean (got string \"no\")",
            "/flags/premiumFeaturesLocked/rules/0/cohort: unknown cohort \"ghosts\"",
            "/flags/premiumFeaturesLocked/rules/1/rollout: must be between 0 and 100 (got 140)",
        ])
    }

    @Test(arguments: [
        ("boolean", "1", "/flags/f/default: must be of the flag's type boolean (got integer 1)"),
        ("string", "true", "/flags/f/default: must be of the flag's type string (got boolean true)"),
        ("integer", "1.5", "/flags/f/default: must be of the flag's type integer (got number 1.5)"),
        ("integer", "\"1\"", "/flags/f/default: must be of the flag's type integer (got string \"1\")"),
        ("number", "null", "/flags/f/default: must be of the flag's type number (got null null)"),
    ])
    func checksValuesAgainstTheFlagsType(type: String, value: String, expected: String) {
        expectIssues(#"{"flags": {"f": {"type": "\#(type)", "default": \#(value)}}}"#, [expected])
    }

    @Test func acceptsEveryTypeWithMatchingValues() throws {
        let document = try TestSupport.document("""
        {"flags": {
          "b": {"type": "boolean", "default": false, "rules": [{"value": true}]},
          "s": {"type": "string", "default": "", "rules": [{"value": "x"}]},
          "i": {"type": "integer", "default": 3, "rules": [{"value": -9007199254740993}]},
          "n": {"type": "number", "default": 2.5, "rules": [{"value": 7}]},
          "j": {"type": "json", "default": {"a": [1, null]}, "rules": [{"value": "any"}, {"value": null}]}
        }}
        """)
        #expect(document.flags.count == 5)
        #expect(document.flags["i"]?.rules.first?.value == .integer(-9_007_199_254_740_993))
    }

    @Test func checksRuleValuesAndPrerequisiteValues() {
        expectIssues("""
        {"flags": {
          "a": {"type": "boolean", "default": true},
          "b": {"type": "string", "default": "x", "requires": {"a": "yes", "zzz": true}, "rules": [{"value": 2}, {"cohort": 7, "value": "y"}, {"rollout": 5}, 3]}
        }}
        """, [
            "/flags/b/rules/0/value: must be of the flag's type string (got integer 2)",
            "/flags/b/rules/1/cohort: must be the name of a cohort (got integer)",
            "/flags/b/rules/2/value: is required",
            "/flags/b/rules/3: must be an object with \"value\" and optional \"cohort\" and \"rollout\" (got integer)",
            "/flags/b/requires/a: must be of the flag's type boolean (got string \"yes\")",
            "/flags/b/requires/zzz: unknown flag \"zzz\"",
        ])
    }

    @Test(arguments: [
        ("-1", "must be between 0 and 100 (got -1)"),
        ("100.001", "must be between 0 and 100 (got 100.001)"),
        ("12.3456", "must have at most 3 decimals (got 12.3456)"),
        ("99.9999999999", "must have at most 3 decimals (got 99.9999999999)"),
        ("0.0005", "must have at most 3 decimals (got 0.0005)"),
        ("1e-320", "must have at most 3 decimals (got 1e-320)"),
        ("\"50\"", "must be a number between 0 and 100 (got string)"),
    ])
    func refusesBadRollouts(rollout: String, message: String) {
        expectIssues(#"{"flags": {"f": {"type": "boolean", "default": false, "rules": [{"value": true, "rollout": \#(rollout)}]}}}"#,
                     ["/flags/f/rules/0/rollout: \(message)"])
    }

    @Test func acceptsRolloutsWithThreeDecimalsAndTheBounds() throws {
        let document = try TestSupport.document(
            #"{"flags": {"f": {"type": "boolean", "default": false, "rules": [{"value": true, "rollout": 0.001}, {"value": true, "rollout": 0}, {"value": true, "rollout": 100}, {"value": true, "rollout": 33.333}, {"value": true, "rollout": 12.345}, {"value": true, "rollout": 99.999}]}}}"#)
        #expect(document.flags["f"]?.rules.map { $0.rollout?.thousandths } == [1, 0, 100_000, 33_333, 12_345, 99_999])
    }

    @Test func findsCohortCyclesAndUnknownReferences() {
        expectIssues("""
        {"flags": {"f": {"type": "boolean", "default": false}},
         "cohorts": {
           "a": {"cohort": "b"},
           "b": {"any": [{"cohort": "c"}, {"not": {"cohort": "a"}}]},
           "c": {"platform": {"eq": "ios"}},
           "d": {"cohort": "nowhere"},
           "self": {"all": [{"cohort": "self"}]}
         }}
        """, [
            "/cohorts/d/cohort: unknown cohort \"nowhere\"",
            "/cohorts/b: cohort reference cycle: a -> b -> a",
            "/cohorts/self: cohort reference cycle: self -> self",
        ])
    }

    @Test func findsPrerequisiteCycles() {
        expectIssues("""
        {"flags": {
          "a": {"type": "boolean", "default": false, "requires": {"b": true}},
          "b": {"type": "boolean", "default": false, "requires": {"c": true}},
          "c": {"type": "boolean", "default": false, "requires": {"a": false}},
          "d": {"type": "boolean", "default": false, "requires": {"d": true}}
        }}
        """, [
            "/flags/c/requires: prerequisite cycle: a -> b -> c -> a",
            "/flags/d/requires: prerequisite cycle: d -> d",
        ])
    }

    @Test func checksOperatorsAndOperands() {
        expectIssues("""
        {"flags": {"f": {"type": "boolean", "default": false}},
         "cohorts": {
           "x": {
             "appVersion": {"gte": "2.4.x", "in": ["1.0", 3]},
             "osVersion": {"lt": "17"},
             "locale": {"startsWith": 1, "like": "en%"},
             "country": {"in": "DE"},
             "channel": {"exists": "yes"},
             "score": {"gt": true, "eq": [1]},
             "empty": {},
             "any": {"platform": {"eq": "ios"}},
             "not": []
           }
         }}
        """, [
            "/cohorts/x/any: must be an array of conditions (got object)",
            "/cohorts/x/appVersion/gte: invalid semantic version \"2.4.x\" (expected MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD])",
            "/cohorts/x/appVersion/in/1: must be a semantic version string (got integer 3)",
            "/cohorts/x/channel/exists: must be true or false (got string \"yes\")",
            "/cohorts/x/country/in: must be an array (got string \"DE\")",
            "/cohorts/x/empty: must be an object of operators such as {\"eq\": ...} (got {})",
            "/cohorts/x/locale/like: unknown operator (expected one of: eq, ne, in, notIn, startsWith, endsWith, contains, gt, gte, lt, lte, exists, before, after)",
            "/cohorts/x/locale/startsWith: must be a string (got integer 1)",
            "/cohorts/x/not: must be an object of conditions (got array)",
            "/cohorts/x/score/eq: must be a string, number or boolean (got array [1])",
            "/cohorts/x/score/gt: must be a number or a string (got boolean true)",
        ])
    }

    @Test func checksInstantOperandsAndTheInstallDatesOperators() {
        expectIssues("""
        {"flags": {"f": {"type": "boolean", "default": false}},
         "cohorts": {
           "x": {
             "firstInstallDate": {"before": "2027-03-01", "after": 1803859200000, "gte": "2027-03-01T00:00:00Z"},
             "appVersion": {"after": "2027-03-01T00:00:00Z"},
             "trialStartedAt": {"before": "2027-02-29T00:00:00Z", "after": "2027-03-01T00:00:60Z"}
           },
           "fine": {"firstInstallDate": {"after": "2025-12-31T23:59:59.999-05:00", "before": "2027-03-01t00:00:00z", "exists": true}}
         }}
        """, [
            "/cohorts/x/appVersion/after: appVersion is compared as a semantic version: use lt or gt (before and after take RFC 3339 instants)",
            "/cohorts/x/firstInstallDate/after: must be an RFC 3339 date-time string (got integer 1803859200000)",
            "/cohorts/x/firstInstallDate/before: must be an RFC 3339 date-time with an offset, such as 2027-03-01T00:00:00+01:00 "
                + "or 2027-02-28T23:00:00Z: the time is missing (got \"2027-03-01\")",
            "/cohorts/x/firstInstallDate/gte: firstInstallDate is an instant: compare it with before, after or exists (gte would compare text)",
            "/cohorts/x/trialStartedAt/after: must be an RFC 3339 date-time with an offset, such as 2027-03-01T00:00:00+01:00 "
                + "or 2027-02-28T23:00:00Z: a leap second names no Unix time (got \"2027-03-01T00:00:60Z\")",
            "/cohorts/x/trialStartedAt/before: must be an RFC 3339 date-time with an offset, such as 2027-03-01T00:00:00+01:00 "
                + "or 2027-02-28T23:00:00Z: that month has no day 29 (got \"2027-02-29T00:00:00Z\")",
        ])
    }

    @Test func instantOperatorsRoundTripAsWritten() throws {
        let json = #"{"cohorts":{"early":{"firstInstallDate":{"before":"2027-03-01T01:00:00+01:00"}}},"flags":{}}"#
        let document = try FlagDocument.decode(json)
        #expect(String(decoding: document.canonicalBytes, as: UTF8.self) == json, "the operand keeps its offset: what was written")
    }

    @Test func reportsDuplicateKeysAlongsideOtherProblems() {
        expectIssues(#"{"flags": {"f": {"type": "boolean", "default": false, "default": 1}}}"#, [
            "/flags/f/default: duplicate key",
            "/flags/f/default: must be of the flag's type boolean (got integer 1)",
        ])
    }

    @Test func reportsMalformedJSONWithLineAndColumn() {
        #expect(TestSupport.issues("{\n  \"flags\": {\n    \"a\": {\"type\": \"boolean\" \"default\": true}\n  }\n}")
            == ["/: malformed JSON at line 3, column 29: expected ',' or '}' after an object member"])
    }

    @Test func refusesDocumentsWithoutFlagsOrOfTheWrongShape() {
        expectIssues("[]", ["/: must be an object with \"flags\" and optional \"cohorts\" (got array)"])
        expectIssues("{}", ["/flags: is required"])
        expectIssues(#"{"flags": [], "cohorts": 1}"#, [
            "/cohorts: must be an object of cohort definitions (got integer)",
            "/flags: must be an object of flag definitions (got array)",
        ])
        expectIssues(#"{"flags": {"f": {"type": "boolean"}, "g": 1}}"#, [
            "/flags/f/default: is required",
            "/flags/g: must be an object with \"type\" and \"default\" (got integer)",
        ])
    }

    @Test func escapesPathTokensAsRFC6901Says() {
        expectIssues(#"{"flags": {"f": {"type": "boolean", "default": false, "rules": [{"value": true, "a/b~c": 1}]}}}"#,
                     ["/flags/f/rules/0/a~1b~0c: unknown key (expected one of: cohort, rollout, value)"])
    }

    @Test func encodingRoundTripsAndIsCanonical() throws {
        for file in ["flags/production.json", "flags/staging.json"] {
            let document = try FlagDocument.decode(TestSupport.bytes(file))
            let again = try FlagDocument.decode(document.canonicalBytes)
            #expect(again == document)
            #expect(again.canonicalBytes == document.canonicalBytes)
            #expect(try FlagDocument.decode(document.prettyJSON) == document)
            #expect(document.contentHash.count == 64)
        }
    }
}
