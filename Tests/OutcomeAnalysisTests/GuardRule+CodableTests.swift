import Foundation
import OutcomeAnalysis
import Testing

@Suite struct GuardRuleCodableTests {
    static func decode(_ json: String) throws -> GuardRule {
        try JSONDecoder().decode(GuardRule.self, from: Data(json.utf8))
    }

    static func errorField(_ json: String) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as GuardRuleError {
            return error.field
        } catch {
            return "not a GuardRuleError: \(error)"
        }
    }

    @Test func theSmallestRuleTakesTheDefaults() throws {
        let rule = try Self.decode(#"{"metric": "refunds", "action": "rollback"}"#)
        #expect(rule == (try GuardRule(metric: .refunds, action: .rollback)))
    }

    @Test func everyShapeSurvivesARoundTrip() throws {
        let rules = [
            try GuardRule(metric: .refunds, action: .rollback),
            try GuardRule(metric: .autoRenewOff, measure: .perActive, baseline: .ceiling(0.002), minimumCount: 3,
                          windowHours: 24, action: .pauseSchedules, alpha: 0.05, minimumRelativeChange: 0),
            try GuardRule(metric: .started, measure: .perHour, baseline: .floor(2.5), action: .notify),
            try GuardRule(metric: .introConversions, measure: .perStarted, action: .notify, minimumRelativeChange: 1),
        ]
        for rule in rules {
            let data = try JSONEncoder().encode(rule)
            #expect(try JSONDecoder().decode(GuardRule.self, from: data) == rule)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(rules[1]), as: UTF8.self)
        #expect(text == #"{"action":"pauseSchedules","alpha":0.05,"baseline":"ceiling","measure":"perActive","metric":"autoRenewOff","minimumCount":3,"minimumRelativeChange":0,"threshold":0.002,"windowHours":24}"#)
    }

    @Test func aBadFieldIsNamed() {
        #expect(Self.errorField(#"{"action": "notify"}"#) == "metric")
        #expect(Self.errorField(#"{"metric": "refunds"}"#) == "action")
        #expect(Self.errorField(#"{"metric": "sales", "action": "notify"}"#) == "metric")
        #expect(Self.errorField(#"{"metric": 3, "action": "notify"}"#) == "metric")
        #expect(Self.errorField(#"{"metric": "renewals", "action": "notify"}"#) == "metric")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "explode"}"#) == "action")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "measure": "perDay"}"#) == "measure")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "baseline": "lastYear"}"#) == "baseline")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "baseline": "ceiling"}"#) == "threshold")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "threshold": 2}"#) == "threshold")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "baseline": "ceiling", "threshold": "2"}"#) == "threshold")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "windowHours": 1.5}"#) == "windowHours")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "windowHours": 0}"#) == "windowHours")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "alpha": 2}"#) == "alpha")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "minimumCount": -1}"#) == "minimumCount")
        #expect(Self.errorField(#"{"metric": "refunds", "action": "notify", "minimumRelativeChange": null}"#) == nil)
    }
}
