import AppStoreNotifications
import OutcomeAnalysis
import PaidDayRehearsal
import Testing

/// The generator: seeded (one seed, one week), unique identifiers per tag, and rates that come out as the truth says.
@Suite struct NotificationWeekTests {
    static let start: Int64 = 1_796_083_200_000   // a midnight UTC

    static func truth(installs: Double = 50_000) -> NotificationWeek.Truth {
        NotificationWeek.Truth(arms: [ArmTruth(product: "p.a", share: 50, conversion: 0.02),
                                      ArmTruth(product: "p.b", share: 50, listPrice: 5990, conversion: 0.015)],
                               installsPerDay: installs)
    }

    @Test func oneSeedDrawsOneWeekAndTagsKeepWeeksApart() {
        let a = NotificationWeek(truth: Self.truth(installs: 2_000), start: Self.start, tag: "x", seed: 7)
        let b = NotificationWeek(truth: Self.truth(installs: 2_000), start: Self.start, tag: "x", seed: 7)
        let c = NotificationWeek(truth: Self.truth(installs: 2_000), start: Self.start, tag: "y", seed: 8)
        #expect(a.notifications == b.notifications && !a.notifications.isEmpty)
        #expect(Set(a.notifications.map(\.uuid)).count == a.notifications.count, "one notification, one UUID")
        #expect(Set(a.notifications.map(\.uuid)).isDisjoint(with: c.notifications.map(\.uuid)))
        #expect(a.notifications.allSatisfy { $0.signedDate >= a.start && $0.signedDate < a.end })
        #expect(zip(a.notifications, a.notifications.dropFirst()).allSatisfy { $0.signedDate <= $1.signedDate })
    }

    /// At 50,000 installs a day the week's rates are the truth's within a few standard errors.
    @Test func theRatesAreTheTruths() throws {
        let truth = Self.truth()
        let week = NotificationWeek(truth: truth, start: Self.start, tag: "r", seed: 38)
        let installsPerArm = truth.installsPerDay * 7 / 2
        for (arm, conversion) in [(0, 0.02), (1, 0.015)] {
            let expected = installsPerArm * conversion
            #expect(abs(Double(week.started[arm]) - expected) < 4 * expected.squareRoot(), "arm \(arm): \(week.started[arm]) of \(expected)")
        }
        let records = week.notifications.map { $0.record() }
        let report = try ExperimentAnalysis.analyze(
            arms: truth.arms.map { ExperimentArm(product: $0.product, share: $0.share, listPrice: $0.listPrice, currency: "EUR") },
            history: records, from: week.start, to: week.end)
        #expect(report.arms.map(\.started) == week.started, "every start attributed to its arm")
        let started = Double(week.started.reduce(0, +))
        let trials = Double(report.arms.reduce(0) { $0 + $1.freeTrialStarts })
        #expect(abs(trials / started - 0.5) < 0.02, "free trials: \(trials / started)")
        // Trials that ended inside the week converted at 60 %: conversions + expiries are the ended trials.
        let conversions = Double(report.arms.reduce(0) { $0 + $1.introConversions })
        let expired = Double(records.filter { $0.notificationType == "EXPIRED" }.count)
        #expect(abs(conversions / (conversions + expired) - 0.6) < 0.03, "intro conversion: \(conversions / (conversions + expired))")
        #expect(report.arms.allSatisfy { $0.renewals == $0.introConversions }, "a month's period: only conversions renew in a week")
        let refunds = Double(report.arms.reduce(0) { $0 + $1.refunds })
        let paid = Double(report.arms.reduce(0) { $0 + $1.paidPeriods })
        #expect(refunds / paid > 0.01 && refunds / paid < 0.025, "refunds per paid period: \(refunds / paid) (the last days' refunds fall after the week)")
        #expect(report.comparisons.first?.result.decided == true, "2 % against 1.5 % at 175,000 installs an arm")
    }

    /// The warm-up starts subscriptions before the week, so refunds run at their level from the first hour; a spike
    /// multiplies the refunds after its start.
    @Test func warmUpAndSpike() {
        var truth = NotificationWeek.Truth(arms: [ArmTruth(product: "g", share: 1, conversion: 1)], installsPerDay: 2_400)
        truth.behaviour.refundRate = 0.05
        truth.days = 4
        truth.warmUpDays = 3
        truth.refundSpikeFrom = Self.start + 2 * NotificationWeek.day
        truth.refundFactor = 4
        let week = NotificationWeek(truth: truth, start: Self.start, tag: "w", seed: 3)
        func refunds(day: Int) -> Int {
            week.notifications.filter {
                if case .refunded = $0.kind { return ($0.signedDate - Self.start) / NotificationWeek.day == Int64(day) }
                return false
            }.count
        }
        let (first, second, third) = (refunds(day: 0), refunds(day: 1), refunds(day: 2))
        #expect(first > 0 && abs(first - second) < first / 2, "steady from the first day: \(first), \(second)")
        #expect(third > 3 * second, "the spike: \(third) against \(second)")
    }
}
