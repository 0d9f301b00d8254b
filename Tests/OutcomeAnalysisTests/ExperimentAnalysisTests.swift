import AppStoreNotifications
@testable import OutcomeAnalysis
import Testing

@Suite struct ExperimentAnalysisTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_796_083_200_000

    static func record(_ uuid: String, _ type: String, _ subtype: String? = nil, day: Int64, product: String?,
                       subscription: String?, offerType: Int? = nil, offer: String? = nil, discount: String? = nil) -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: uuid, notificationType: type, subtype: subtype,
                                        signedDate: start + day * Self.day + 3_600_000, receivedAt: 0, environment: "Production")
        record.productID = product
        record.subscription = subscription
        record.offerType = offerType
        record.offerIdentifier = offer
        record.offerDiscountType = discount
        record.expiresDate = record.signedDate + 30 * Self.day
        return record
    }

    static let arms = [
        ExperimentArm(product: "symi.plus.monthly", share: 40, listPrice: 4990, currency: "EUR"),
        ExperimentArm(product: "symi.plus.monthly", offer: "LAUNCH", share: 20, listPrice: 4990, currency: "EUR"),
        ExperimentArm(product: "symi.plus.monthly.hi", share: 40, listPrice: 5990, currency: "EUR"),
    ]

    @Test func subscriptionsBelongToTheArmOfTheirFirstStart() throws {
        let history = [
            // Before the range: not in the experiment, nor its renewal inside it.
            Self.record("old", "SUBSCRIBED", "INITIAL_BUY", day: -3, product: "symi.plus.monthly", subscription: "s0"),
            Self.record("old-renew", "DID_RENEW", day: 1, product: "symi.plus.monthly", subscription: "s0"),
            // Arm 0: a free trial that converts, then a refund.
            Self.record("s1", "SUBSCRIBED", "INITIAL_BUY", day: 0, product: "symi.plus.monthly", subscription: "s1",
                        offerType: 1, discount: "FREE_TRIAL"),
            Self.record("s1-renew", "DID_RENEW", day: 3, product: "symi.plus.monthly", subscription: "s1"),
            Self.record("s1-refund", "REFUND", day: 4, product: "symi.plus.monthly", subscription: "s1"),
            // Arm 1: the offer code's start; its renewal carries no offer and stays in arm 1.
            Self.record("s2", "SUBSCRIBED", "INITIAL_BUY", day: 1, product: "symi.plus.monthly", subscription: "s2",
                        offerType: 3, offer: "LAUNCH"),
            Self.record("s2-renew", "DID_RENEW", day: 2, product: "symi.plus.monthly", subscription: "s2"),
            // Arm 2: a paid start that later moves to the cheaper product: still arm 2.
            Self.record("s3", "SUBSCRIBED", "INITIAL_BUY", day: 1, product: "symi.plus.monthly.hi", subscription: "s3"),
            Self.record("s3-renew", "DID_RENEW", day: 5, product: "symi.plus.monthly", subscription: "s3"),
            // Not in any arm.
            Self.record("other", "SUBSCRIBED", "INITIAL_BUY", day: 2, product: "symi.plus.yearly", subscription: "s4"),
            Self.record("test", "TEST", day: 2, product: nil, subscription: nil),
            // After the range.
            Self.record("late", "SUBSCRIBED", "INITIAL_BUY", day: 7, product: "symi.plus.monthly", subscription: "s5"),
        ]
        let report = try ExperimentAnalysis.analyze(arms: Self.arms, history: history.reversed(), from: Self.start, to: Self.start + 7 * Self.day)
        #expect(report.arms.map(\.started) == [1, 1, 1])
        #expect(report.arms.map(\.renewals) == [1, 1, 1])
        #expect(report.arms.map(\.introConversions) == [1, 0, 0] && report.arms.map(\.freeTrialStarts) == [1, 0, 0])
        #expect(report.arms.map(\.refunds) == [1, 0, 0])
        #expect(report.arms.map(\.paidPeriods) == [1, 2, 2])
        #expect(report.arms.map(\.revenueAtListPrice) == [0, 9980, 11980])
        #expect(report.arms[0].dailyStarted == [1, 1, 1, 1, 1, 1, 1] && report.arms[2].dailyStarted == [0, 1, 1, 1, 1, 1, 1])
        #expect(report.comparisons.map { [$0.first, $0.second] } == [[0, 1], [0, 2], [1, 2]])
        #expect(report.comparisons.allSatisfy { $0.verdict == "not decided yet" })
        #expect(report.sampleRatioChecks.isEmpty, "no two arms without an offer share a price")
    }

    @Test func enoughStartsDecideAndTheSplitIsCheckedBetweenEqualArms() throws {
        // Arms 0 and 1 at one price (an A/A pair at 25/25), arm 2 at a higher price (50) converting half as well.
        let arms = [
            ExperimentArm(product: "symi.plus.monthly", share: 25, listPrice: 4990, currency: "EUR"),
            ExperimentArm(product: "symi.plus.monthly.b", share: 25, listPrice: 4990, currency: "EUR"),
            ExperimentArm(product: "symi.plus.monthly.hi", share: 50, listPrice: 6990, currency: "EUR"),
        ]
        var history: [NotificationRecord] = []
        for day in 0..<14 {
            for (arm, perDay) in [(0, 20), (1, 20), (2, 20)] {
                for n in 0..<perDay {
                    let id = "\(arm)-\(day)-\(n)"
                    history.append(Self.record(id, "SUBSCRIBED", "INITIAL_BUY", day: Int64(day), product: arms[arm].product, subscription: id))
                }
            }
        }
        let report = try ExperimentAnalysis.analyze(arms: arms, history: history, from: Self.start, to: Self.start + 14 * Self.day)
        #expect(report.arms.map(\.started) == [280, 280, 280])
        let aa = try #require(report.comparisons.first { $0.first == 0 && $0.second == 1 })
        #expect(aa.verdict == "not decided yet" && aa.result.interval.contains(1))
        let priced = try #require(report.comparisons.first { $0.first == 0 && $0.second == 2 })
        #expect(priced.verdict == "arm 0 starts more" && abs(priced.result.rateRatio - 2) < 1e-12 && priced.result.interval.lowerBound > 1)
        #expect(report.sampleRatioChecks.count == 1 && report.sampleRatioChecks.first?.mismatch == false)
    }

    @Test func invalidArmsAreNamed() {
        func field(_ arms: [ExperimentArm], alpha: Double = 0.05) -> String? {
            do {
                _ = try ExperimentAnalysis.analyze(arms: arms, history: [], from: 0, to: Self.day, alpha: alpha)
                return nil
            } catch {
                return error.field
            }
        }
        let a = ExperimentArm(product: "a", share: 50)
        #expect(field([a]) == "arms")
        #expect(field([a, ExperimentArm(product: "", share: 50)]) == "arms[1].product")
        #expect(field([a, ExperimentArm(product: "b", share: 0)]) == "arms[1].share")
        #expect(field([a, ExperimentArm(product: "b", share: .infinity)]) == "arms[1].share")
        #expect(field([a, ExperimentArm(product: "a", share: 50)]) == "arms[1]")
        #expect(field([a, ExperimentArm(product: "b", share: 50, listPrice: -1)]) == "arms[1].listPrice")
        #expect(field([a, ExperimentArm(product: "a", offer: "X", share: 50)], alpha: 0.7) == "alpha")
        #expect(field([a, ExperimentArm(product: "a", offer: "X", share: 50)]) == nil)
    }
}

extension ExperimentAnalysisTests {
    /// A month of notifications from a population with known conversions: 2,000 installs a day split 25/25/50 over
    /// two products at 4.99 (an A/A pair) and one at 5.99 that converts a fifth less (2 % against 1.6 %); half the
    /// starts are free trials, 60 % of which convert after 3 days. With `brokenTwin` the twin arm's paywall fails for
    /// half its installs.
    static func month(_ rng: inout SeededGenerator, arms: [ExperimentArm], brokenTwin: Bool) -> (records: [NotificationRecord], started: [Int]) {
        let conversion = [0.02, brokenTwin ? 0.01 : 0.02, 0.016]
        var records: [NotificationRecord] = []
        var started = [0, 0, 0]
        for day in 0..<28 {
            for (arm, rate) in conversion.enumerated() {
                for n in 0..<rng.poisson(2000 * arms[arm].share / 100 * rate) {
                    let id = "\(arm)-\(day)-\(n)"
                    let trial = rng.uniform() < 0.5
                    records.append(record(id, "SUBSCRIBED", "INITIAL_BUY", day: Int64(day), product: arms[arm].product, subscription: id,
                                          offerType: trial ? 1 : nil, discount: trial ? "FREE_TRIAL" : nil))
                    started[arm] += 1
                    if trial, day + 3 < 28, rng.uniform() < 0.6 {
                        records.append(record(id + "-renew", "DID_RENEW", day: Int64(day + 3), product: arms[arm].product, subscription: id))
                    }
                }
            }
        }
        return (records, started)
    }

    @Test func aSimulatedMonthIsReadBackAndABrokenSplitIsCaught() throws {
        let arms = [
            ExperimentArm(product: "symi.plus.monthly", share: 25, listPrice: 4990, currency: "EUR"),
            ExperimentArm(product: "symi.plus.monthly.b", share: 25, listPrice: 4990, currency: "EUR"),
            ExperimentArm(product: "symi.plus.monthly.hi", share: 50, listPrice: 5990, currency: "EUR"),
        ]
        var rng = SeededGenerator(seed: 3808)
        let healthy = Self.month(&rng, arms: arms, brokenTwin: false)
        let report = try ExperimentAnalysis.analyze(arms: arms, history: healthy.records, from: Self.start, to: Self.start + 28 * Self.day)
        #expect(report.arms.map(\.started) == healthy.started)
        #expect(report.arms.allSatisfy { $0.dailyStarted.count == 28 && $0.dailyStarted.last == $0.started })
        #expect(report.arms.allSatisfy { $0.introConversions == $0.renewals && $0.introConversions > 0 })
        #expect(report.sampleRatioChecks.count == 1 && report.sampleRatioChecks.first?.mismatch == false)
        let priced = try #require(report.comparisons.first { $0.first == 0 && $0.second == 2 })
        #expect(priced.result.interval.contains(1.25), "the true ratio of starts per share: 2 % against 1.6 %")
        let broken = Self.month(&rng, arms: arms, brokenTwin: true)
        let brokenReport = try ExperimentAnalysis.analyze(arms: arms, history: broken.records, from: Self.start, to: Self.start + 28 * Self.day)
        #expect(brokenReport.sampleRatioChecks.first?.mismatch == true)
        print("experiment through notifications: started \(healthy.started), price comparison \(priced.verdict), ratio \(priced.result.rateRatio) in \(priced.result.interval); broken twin: started \(broken.started), sample-ratio p \(brokenReport.sampleRatioChecks.first?.pValue ?? 1)")
    }
}
