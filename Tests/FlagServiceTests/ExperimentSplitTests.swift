import FlagKit
import Foundation
import Testing
@testable import FlagService

/// `ExperimentSplit` against FlagKit's own evaluation: every install id's evaluated value is the value of the arm
/// whose buckets hold its bucket (or `""`, the default paywall, outside every arm), and the arms' shares are the
/// fractions of installs that see them.
@Suite struct ExperimentSplitTests {
    /// A document with one flag `paywallProduct` made of `rules` (JSON) and `defaultValue`.
    static func flag(_ rules: String, default defaultValue: String = "", salt: String? = nil) throws -> (FlagDocument, Flag) {
        let saltMember = salt.map { ", \"salt\": \"\($0)\"" } ?? ""
        let document = try FlagDocument.decode("""
            {"flags": {"paywallProduct": {"type": "string", "default": "\(defaultValue)", "rules": \(rules)\(saltMember)}},
             "cohorts": {"beta": {"platform": {"eq": "ios"}}}}
            """)
        let flag = try #require(document.flags["paywallProduct"])
        return (document, flag)
    }

    /// Evaluates `count` random install ids (seeded) and checks each against the split; returns the installs per value.
    static func checkAgainstEvaluation(_ document: FlagDocument, _ split: ExperimentSplit, count: Int = 20_000) throws -> [String: Int] {
        var generator = SplitMix64(seed: 38)
        var seen: [String: Int] = [:]
        for _ in 0..<count {
            let id = generator.nextInstallId()
            let value = try #require(document.evaluate("paywallProduct", context: EvaluationContext(installId: id)).value.stringValue)
            let bucket = Bucketing.bucket(salt: split.salt, unit: id)
            let expected = split.arm(forBucket: bucket).map { split.arms[$0].value } ?? ""
            #expect(value == expected || (expected == "" && !split.arms.contains { $0.value == value }),
                    "install \(id) in bucket \(bucket): evaluated \(value), split says \(expected)")
            seen[value, default: 0] += 1
        }
        // Each arm's fraction of installs is its share, within five standard errors.
        for arm in split.arms {
            let share = Double(arm.thousandths) / 100_000
            let observed = Double(seen[arm.value] ?? 0) / Double(count)
            #expect(abs(observed - share) <= 5 * (share * (1 - share) / Double(count)).squareRoot() + 1e-9, "\(arm.value): \(observed) against \(share)")
        }
        return seen
    }

    @Test func slicesFollowTheRulesInOrder() throws {
        let (document, flag) = try Self.flag("""
            [{"value": "symi_plus_monthly_399", "rollout": 25}, {"value": "symi_plus_monthly_499", "rollout": 50},
             {"value": "", "rollout": 60}]
            """, default: "symi_plus_monthly")
        let split = try ExperimentSplit.derive(key: "paywallProduct", flag: flag)
        #expect(split.arms.map(\.value) == ["symi_plus_monthly_399", "symi_plus_monthly_499", "symi_plus_monthly"])
        #expect(split.arms.map(\.thousandths) == [25_000, 25_000, 40_000])
        #expect(split.arms[2].buckets == [60_000..<100_000])
        let seen = try Self.checkAgainstEvaluation(document, split)
        #expect((seen[""] ?? 0) > 0, "the 10 % slice with \"\" sees the default paywall")
    }

    @Test func aSmallerLaterRolloutTakesNothingAndRepeatedValuesAreOneArm() throws {
        let (document, flag) = try Self.flag("""
            [{"value": "a", "rollout": 40}, {"value": "b/winback", "rollout": 30}, {"value": "c", "rollout": 70.5},
             {"value": "a", "rollout": 80}]
            """, default: "d", salt: "price-test-2")
        let split = try ExperimentSplit.derive(key: "paywallProduct", flag: flag)
        #expect(split.salt == "price-test-2")
        #expect(split.arms.map(\.value) == ["a", "c", "d"], "b's rollout is inside a's: it takes no bucket")
        #expect(split.arms[0].buckets == [0..<40_000, 70_500..<80_000] && split.arms[0].thousandths == 49_500)
        #expect(split.arms[1].thousandths == 30_500 && split.arms[2].thousandths == 20_000)
        _ = try Self.checkAgainstEvaluation(document, split)
    }

    @Test func aRuleWithoutRolloutEndsTheSplit() throws {
        let (document, flag) = try Self.flag("""
            [{"value": "p/intro50", "rollout": 50}, {"value": "p"}, {"value": "q", "rollout": 90}]
            """, default: "r")
        let split = try ExperimentSplit.derive(key: "paywallProduct", flag: flag)
        #expect(split.arms.map(\.value) == ["p/intro50", "p"])
        #expect(split.arms.map(\.offer) == ["intro50", nil] && split.arms.map(\.thousandths) == [50_000, 50_000])
        _ = try Self.checkAgainstEvaluation(document, split)
    }

    @Test func whatIsNotAnExperimentIsRefusedWithItsReason() throws {
        let cases: [(String, String, String)] = [
            ("""
             [{"cohort": "beta", "value": "a", "rollout": 50}]
             """, "b", "cohort"),
            ("""
             [{"value": "a b", "rollout": 50}]
             """, "b", "not a product id"),
            ("""
             [{"value": "a/b/c", "rollout": 50}]
             """, "b", "not a product id"),
            ("""
             [{"value": "a", "rollout": 50}]
             """, "", "1 product"),
            ("""
             [{"value": "a", "rollout": 0}]
             """, "", "0 products"),
            ("[]", "a", "1 product"),
        ]
        for (rules, defaultValue, reason) in cases {
            let (_, flag) = try Self.flag(rules, default: defaultValue)
            #expect(throws: ExperimentSplit.Refusal.self, "\(rules)") { try ExperimentSplit.derive(key: "paywallProduct", flag: flag) }
            do {
                _ = try ExperimentSplit.derive(key: "paywallProduct", flag: flag)
            } catch {
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
        let boolean = Flag(type: .boolean, defaultValue: false)
        #expect(throws: ExperimentSplit.Refusal(message: "paywallProduct is a boolean flag; an experiment is a string flag")) {
            try ExperimentSplit.derive(key: "paywallProduct", flag: boolean)
        }
        var required = try Self.flag("[{\"value\": \"a\", \"rollout\": 50}]", default: "b").1
        required.requires = ["monetizationEnabled": true]
        #expect(throws: ExperimentSplit.Refusal.self) { try ExperimentSplit.derive(key: "paywallProduct", flag: required) }
    }

    @Test func valuesAreProductIdsWithAnOptionalOffer() {
        #expect(ExperimentSplit.parse("symi_plus_monthly_499").map { "\($0.product) \($0.offer ?? "-")" } == "symi_plus_monthly_499 -")
        #expect(ExperimentSplit.parse("app.symi.plus-1/winback_2026").map { "\($0.product) \($0.offer ?? "-")" } == "app.symi.plus-1 winback_2026")
        for bad in ["", "/", "a/", "/b", "a b", "a/b/c", "ä", String(repeating: "x", count: 101)] {
            #expect(ExperimentSplit.parse(bad) == nil, "\(bad)")
        }
    }
}
