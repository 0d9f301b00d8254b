import Testing
@testable import FlagKit

@Suite struct FlagDocumentEvaluationTests {
    static let document: FlagDocument = {
        do {
            return try FlagDocument.decode("""
            {
              "flags": {
                "monetizationEnabled": {"type": "boolean", "default": true, "rules": [{"cohort": "blocked", "value": false}]},
                "premiumFeaturesLocked": {
                  "type": "boolean", "default": false, "requires": {"monetizationEnabled": true},
                  "rules": [{"cohort": "internal", "value": true}, {"cohort": "beta", "value": true, "rollout": 12.5}]
                },
                "staticFlag": {"type": "string", "default": "same for all"},
                "everyoneRollout": {"type": "integer", "default": 0, "rules": [{"value": 1, "rollout": 50}]},
                "fullRollout": {"type": "integer", "default": 0, "rules": [{"value": 1, "rollout": 100}]},
                "salted": {"type": "integer", "default": 0, "salt": "monetizationEnabled", "rules": [{"value": 1, "rollout": 50}]}
              },
              "cohorts": {
                "internal": {"installId": {"in": ["staff-1"]}},
                "beta": {"appVersion": {"gte": "2.4.0"}, "channel": {"in": ["testflight"]}},
                "blocked": {"country": {"eq": "XX"}}
              }
            }
            """)
        } catch {
            Issue.record("fixture invalid: \(error)")
            return FlagDocument(uncheckedFlags: [:], cohorts: [:])
        }
    }()

    private func evaluate(_ key: String, _ context: EvaluationContext) -> EvaluationResult {
        Self.document.evaluate(key, context: context, version: 7)
    }

    @Test func flagWithoutRulesIsStatic() {
        let result = evaluate("staticFlag", EvaluationContext(installId: "x"))
        #expect(result == EvaluationResult(key: "staticFlag", value: "same for all", variant: "default", reason: .staticValue, version: 7))
    }

    @Test func firstMatchingRuleWins() {
        let result = evaluate("premiumFeaturesLocked", EvaluationContext(installId: "staff-1", appVersion: "2.5", channel: "testflight"))
        #expect(result.value == true)
        #expect(result.variant == "rule-0")
        #expect(result.reason == .targetingMatch)
    }

    @Test func noMatchingRuleGivesTheDefault() {
        let result = evaluate("premiumFeaturesLocked", EvaluationContext(installId: "someone", appVersion: "2.3.9", channel: "testflight"))
        #expect(result.value == false)
        #expect(result.reason == .defaultValue)
        #expect(result.variant == "default")
    }

    @Test func rolloutDecidesBySplitAndFallsThroughOutside() {
        var inside = 0
        for index in 0..<2_000 {
            let context = EvaluationContext(installId: "install-\(index)", appVersion: "2.4.0", channel: "testflight")
            let result = evaluate("premiumFeaturesLocked", context)
            let bucket = Bucketing.bucket(salt: "premiumFeaturesLocked", unit: "install-\(index)")
            if bucket < 12_500 {
                inside += 1
                #expect(result.value == true && result.reason == .split && result.variant == "rule-1")
            } else {
                #expect(result.value == false && result.reason == .defaultValue)
            }
        }
        #expect((180...320).contains(inside), "about 12.5 % of 2,000, got \(inside)")
    }

    @Test func rolloutWithoutInstallIdDoesNotMatch() {
        let result = evaluate("everyoneRollout", EvaluationContext())
        #expect(result.value == 0)
        #expect(result.reason == .defaultValue)
    }

    /// The bucketing contract: an empty id is no id. "fullRollout" is a 100 % rollout, so only the id decides.
    @Test func rolloutWithAnEmptyInstallIdDoesNotMatch() {
        let result = evaluate("fullRollout", EvaluationContext(installId: ""))
        #expect(result.value == 0)
        #expect(result.reason == .defaultValue)
        #expect(evaluate("fullRollout", EvaluationContext(attributes: ["targetingKey": ""])).value == 0)
        #expect(evaluate("fullRollout", EvaluationContext(installId: "x")).reason == .split)
    }

    @Test func saltReplacesTheKeyInBucketing() {
        for index in 0..<500 {
            let id = "install-\(index)"
            let expected: JSONValue = Bucketing.bucket(salt: "monetizationEnabled", unit: id) < 50_000 ? 1 : 0
            #expect(evaluate("salted", EvaluationContext(installId: id)).value == expected)
        }
    }

    @Test func unmetPrerequisiteGivesTheDefaultAsDisabled() {
        let result = evaluate("premiumFeaturesLocked", EvaluationContext(installId: "staff-1", country: "XX"))
        #expect(result.value == false)
        #expect(result.reason == .disabled)
    }

    @Test func unknownFlagIsAnError() {
        let result = evaluate("nope", EvaluationContext())
        #expect(result.reason == .error)
        #expect(result.errorCode == .flagNotFound)
        #expect(result.version == 7)
    }

    @Test func raisingARolloutOnlyAddsInstalls() throws {
        var previous: Set<Int> = []
        for percent in [0, 0.001, 1, 5, 12.5, 12.501, 50, 99.999, 100] {
            let json = #"{"flags": {"f": {"type": "boolean", "default": false, "rules": [{"value": true, "rollout": \#(percent)}]}}}"#
            let document = try FlagDocument.decode(json)
            var included: Set<Int> = []
            for index in 0..<5_000 where document.evaluate("f", context: EvaluationContext(installId: "i-\(index)")).value == true {
                included.insert(index)
            }
            #expect(previous.isSubset(of: included), "raising to \(percent)% removed installs")
            previous = included
        }
        #expect(previous.count == 5_000)
    }

    @Test func evaluateAllCoversEveryFlag() {
        let results = Self.document.evaluateAll(context: EvaluationContext(installId: "a"), version: 3)
        #expect(Set(results.keys) == Set(Self.document.flags.keys))
        #expect(results.values.allSatisfy { $0.version == 3 })
    }

    /// The outcome OFREP answers from names the same value, variant and reason as `evaluate`, and a
    /// rule's reason follows from whether it has a rollout (OFREP prepares one answer per rule on that).
    @Test func outcomeAgreesWithEvaluate() throws {
        let contexts = (0..<400).map { n in
            EvaluationContext(installId: n % 7 == 0 ? nil : "install-\(n)", appVersion: ["2.3.9", "2.4.0", "3", nil][n % 4],
                              country: n % 5 == 0 ? "XX" : "DE", channel: ["testflight", "appstore"][n % 2])
        }
        var reasons = Set<EvaluationReason>()
        for context in contexts {
            for (key, flag) in Self.document.flags {
                let outcome = Self.document.outcome(key: key, flag: flag, context: context)
                let result = evaluate(key, context)
                #expect(outcome.value(of: flag) == result.value)
                #expect(outcome.variant == result.variant)
                #expect(outcome.reason == result.reason)
                if case .rule(let index, let reason) = outcome {
                    #expect(reason == (flag.rules[index].rollout == nil ? .targetingMatch : .split))
                }
                reasons.insert(outcome.reason)
            }
        }
        #expect(reasons == [.staticValue, .targetingMatch, .split, .defaultValue, .disabled])
    }
}
