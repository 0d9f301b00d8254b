import AppStoreNotifications
import OutcomeAnalysis
import Testing

@Suite struct GuardRuleTests {
    @Test func theDefaultsAreThoseTheDocumentationExplains() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        #expect(rule.measure == .perHour && rule.baseline == .previousWeek && rule.minimumCount == 5)
        #expect(rule.windowHours == 72 && rule.alpha == 0.01 && rule.minimumRelativeChange == 0.5)
    }

    @Test func badOutcomesTripOnARiseAndLostSalesOnAFall() throws {
        for metric in [OutcomeMetric.refunds, .autoRenewOff, .billingProblems] {
            #expect(try GuardRule(metric: metric, action: .notify).tripsOnRise, "\(metric)")
        }
        for metric in [OutcomeMetric.started, .introConversions] {
            #expect(try !GuardRule(metric: metric, action: .notify).tripsOnRise, "\(metric)")
        }
        #expect(try !GuardRule(metric: .refunds, baseline: .floor(1), action: .notify).tripsOnRise)
        #expect(try GuardRule(metric: .started, baseline: .ceiling(100), action: .notify).tripsOnRise)
    }

    @Test func eachInvalidFieldIsNamed() {
        func field(_ make: () throws(GuardRuleError) -> GuardRule) -> String? {
            do { _ = try make(); return nil } catch { return error.field }
        }
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .renewals, action: .notify) } == "metric")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .active, action: .notify) } == "metric")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .started, measure: .perStarted, action: .notify) } == "measure")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, baseline: .ceiling(-1), action: .notify) } == "threshold")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, baseline: .ceiling(.nan), action: .notify) } == "threshold")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .started, baseline: .floor(0), action: .notify) } == "threshold")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, minimumCount: 0, action: .notify) } == "minimumCount")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, windowHours: 0, action: .notify) } == "windowHours")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, windowHours: 721, action: .notify) } == "windowHours")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, windowHours: 169, action: .notify) } == "windowHours")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, baseline: .ceiling(1), windowHours: 720, action: .notify) } == nil)
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, action: .notify, alpha: 0) } == "alpha")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, action: .notify, alpha: 0.5) } == "alpha")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, action: .notify, minimumRelativeChange: -0.1) } == "minimumRelativeChange")
        #expect(field { () throws(GuardRuleError) in try GuardRule(metric: .refunds, baseline: .ceiling(0), action: .notify) } == nil)
    }
}
