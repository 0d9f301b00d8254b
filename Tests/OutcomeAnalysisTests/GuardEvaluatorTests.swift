import AppStoreNotifications
@testable import OutcomeAnalysis
import Testing

@Suite struct GuardEvaluatorTests {
    static let hour: Int64 = 3_600_000
    /// A Monday 00:00 UTC; publication is a week and 17 minutes later, so the series starts a week before its hour.
    static let seriesStart: Int64 = 1_796_083_200_000
    static let publishedAt = seriesStart + 7 * 24 * hour + 17 * 60_000
    static let weekHours = 7 * 24

    /// Hours from a week before publication's hour to the end of a 72-hour window: a count per hour from `rate`.
    static func series(_ rate: (Int) -> Int, started: Int = 10, active: Int = 1000) -> HourlyOutcomes {
        let hours = weekHours + 73
        return HourlyOutcomes(from: seriesStart, counts: (0..<hours).map(rate),
                              started: Array(repeating: started, count: hours), active: Array(repeating: active, count: hours))
    }

    /// `now` after `hours` complete hours since publication's hour.
    static func now(after hours: Int) -> Int64 { seriesStart + Int64(weekHours + hours) * hour + 60_000 }

    @Test func aSteadyOutcomeHoldsAndATripledOneTrips() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        let steady = GuardEvaluator.evaluate(rule: rule, hourly: Self.series { _ in 2 }, publishedAt: Self.publishedAt, now: Self.now(after: 6))
        #expect(steady.verdict == .held)
        #expect(steady.figures.count == 12 && steady.figures.hours == 6 && steady.figures.expectedCount == 12)
        #expect(steady.figures.observed == 2 && steady.figures.baseline == 2)
        #expect(steady.figures.perLookAlpha == 0.01 / (72 * 60))
        let threshold = try #require(steady.figures.threshold)
        #expect(threshold >= 3, "at least +50 %")
        let tripled = GuardEvaluator.evaluate(rule: rule, hourly: Self.series { $0 >= Self.weekHours ? 6 : 2 },
                                              publishedAt: Self.publishedAt, now: Self.now(after: 6))
        #expect(tripled.verdict == .tripped && tripled.figures.count == 36 && tripled.figures.observed == 6)
        #expect(tripled.figures.pValue <= tripled.figures.perLookAlpha && tripled.figures.observed >= threshold)
    }

    @Test func theMinimumCountKeepsAQuietOutcomeFromTripping() throws {
        // 0 refunds a week, then 4 in an hour: far beyond the baseline, but below the minimum count of 5.
        let rule = try GuardRule(metric: .refunds, action: .notify)
        let spike = Self.series { $0 == Self.weekHours ? 4 : 0 }
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: spike, publishedAt: Self.publishedAt, now: Self.now(after: 1)).verdict == .held)
        // Against an empty week, x refunds have p = 8⁻ˣ (each of them could have fallen in any of the eight days):
        // 6 (3.8e-6) are not yet below the per-look alpha (2.3e-6), 7 are.
        for (count, verdict) in [(6, GuardVerdict.held), (7, .tripped)] {
            let burst = Self.series { $0 == Self.weekHours ? count : 0 }
            let decision = GuardEvaluator.evaluate(rule: rule, hourly: burst, publishedAt: Self.publishedAt, now: Self.now(after: 1))
            #expect(decision.verdict == verdict && decision.figures.threshold == 7, "\(count)")
        }
    }

    @Test func aFallInStartsTripsAStartedGuard() throws {
        let rule = try GuardRule(metric: .started, action: .pauseSchedules)
        let fall = Self.series { $0 >= Self.weekHours ? 2 : 10 }
        let decision = GuardEvaluator.evaluate(rule: rule, hourly: fall, publishedAt: Self.publishedAt, now: Self.now(after: 4))
        #expect(decision.verdict == .tripped && decision.figures.expectedCount == 40 && decision.figures.count == 8)
        let slight = Self.series { $0 >= Self.weekHours ? 8 : 10 }
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: slight, publishedAt: Self.publishedAt, now: Self.now(after: 24)).verdict == .held)
    }

    @Test func ratesTakeTheirExposureFromStartsOrActiveSubscriptions() throws {
        // Starts double after publication and refunds with them: per hour that is a rise, per start it is none.
        let hours = Self.weekHours + 73
        let started = (0..<hours).map { $0 >= Self.weekHours ? 40 : 20 }
        let refunds = (0..<hours).map { $0 >= Self.weekHours ? 4 : 2 }
        let hourly = HourlyOutcomes(from: Self.seriesStart, counts: refunds, started: started, active: started.map { $0 * 100 })
        let perHour = try GuardRule(metric: .refunds, action: .notify)
        let perStarted = try GuardRule(metric: .refunds, measure: .perStarted, action: .notify)
        let perActive = try GuardRule(metric: .refunds, measure: .perActive, action: .notify)
        let now = Self.now(after: 24)
        #expect(GuardEvaluator.evaluate(rule: perHour, hourly: hourly, publishedAt: Self.publishedAt, now: now).verdict == .tripped)
        let byStart = GuardEvaluator.evaluate(rule: perStarted, hourly: hourly, publishedAt: Self.publishedAt, now: now)
        #expect(byStart.verdict == .held && byStart.figures.observed == 0.1 && byStart.figures.baseline == 0.1)
        #expect(GuardEvaluator.evaluate(rule: perActive, hourly: hourly, publishedAt: Self.publishedAt, now: now).verdict == .held)
    }

    @Test func aFixedCeilingOrFloorIsTestedAgainstPoissonNoise() throws {
        let ceiling = try GuardRule(metric: .refunds, baseline: .ceiling(1), action: .notify)
        let three = Self.series { _ in 3 }
        let above = GuardEvaluator.evaluate(rule: ceiling, hourly: three, publishedAt: Self.publishedAt, now: Self.now(after: 12))
        #expect(above.verdict == .tripped && above.figures.baseline == 1 && above.figures.expectedCount == 12)
        // One hour of 2 against a ceiling of 1 is noise.
        let two = Self.series { _ in 2 }
        #expect(GuardEvaluator.evaluate(rule: ceiling, hourly: two, publishedAt: Self.publishedAt, now: Self.now(after: 1)).verdict == .held)
        let floor = try GuardRule(metric: .started, baseline: .floor(10), action: .notify)
        let none = Self.series { _ in 0 }
        #expect(GuardEvaluator.evaluate(rule: floor, hourly: none, publishedAt: Self.publishedAt, now: Self.now(after: 2)).verdict == .tripped)
        let quietFloor = try GuardRule(metric: .started, baseline: .floor(1), minimumCount: 5, action: .notify)
        let early = GuardEvaluator.evaluate(rule: quietFloor, hourly: none, publishedAt: Self.publishedAt, now: Self.now(after: 4))
        #expect(early.verdict == .held && early.figures.threshold == nil, "4 expected starts are below the minimum count")
    }

    @Test func outsideTheWindowOrWithoutTheHoursItSaysSo() throws {
        let rule = try GuardRule(metric: .refunds, action: .notify)
        let hourly = Self.series { _ in 1 }
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.publishedAt - 1).verdict == .outsideWindow)
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt,
                                        now: Self.publishedAt + 72 * Self.hour).verdict == .outsideWindow)
        let first = GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.publishedAt + 60_000)
        #expect(first.verdict == .notEnoughData && first.figures.hours == 0, "the publication's hour is not over")
        let short = HourlyOutcomes(from: Self.seriesStart + 24 * Self.hour, counts: hourly.counts, started: hourly.started, active: hourly.active)
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: short, publishedAt: Self.publishedAt, now: Self.now(after: 3)).verdict == .notEnoughData)
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: .max - 5, now: .max).verdict == .outsideWindow)
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: .max - 5, now: .max - 1).verdict == .notEnoughData)
        let perActive = try GuardRule(metric: .refunds, measure: .perActive, action: .notify)
        let nobody = Self.series({ _ in 1 }, active: 0)
        #expect(GuardEvaluator.evaluate(rule: perActive, hourly: nobody, publishedAt: Self.publishedAt, now: Self.now(after: 3)).verdict == .notEnoughData)
    }

    @Test func aReportOfRealNotificationsTripsOnARefundSpike() throws {
        // Two refunds every hour of the week before (at :30), then eight an hour after publication.
        var records: [NotificationRecord] = []
        for hourIndex in 0..<(Self.weekHours + 5) {
            let perHour = hourIndex >= Self.weekHours ? 8 : 2
            for n in 0..<perHour {
                var refund = NotificationRecord(notificationUUID: "\(hourIndex)-\(n)", notificationType: "REFUND",
                                                signedDate: Self.seriesStart + Int64(hourIndex) * Self.hour + 1_800_000 + Int64(n),
                                                receivedAt: 0, environment: "Production")
                refund.productID = "symi.plus.monthly"
                refund.subscription = "sub-\(hourIndex)-\(n)"
                records.append(refund)
            }
        }
        let now = Self.now(after: 4)
        let report = OutcomeReport.compute(history: records, from: Self.publishedAt - 7 * 24 * Self.hour, to: now, bucket: .hour, product: nil)
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        let decision = GuardEvaluator.evaluate(rule: rule, hourly: report, publishedAt: Self.publishedAt, now: now)
        #expect(decision.verdict == .tripped && decision.figures.count == 32 && decision.figures.expectedCount == 8)
        let daily = OutcomeReport.compute(history: records, from: Self.seriesStart, to: now, bucket: .day, product: nil)
        #expect(GuardEvaluator.evaluate(rule: rule, hourly: daily, publishedAt: Self.publishedAt, now: now).verdict == .notEnoughData)
    }

    @Test func thePreviousWeekIsDisjointSpansOfWholeDaysBeforePublication() throws {
        let day = 24
        #expect(GuardEvaluator.baselineShifts(hours: 1) == (1...7).map { $0 * day })
        #expect(GuardEvaluator.baselineShifts(hours: 24) == (1...7).map { $0 * day })
        #expect(GuardEvaluator.baselineShifts(hours: 25) == [2 * day, 4 * day, 6 * day])
        #expect(GuardEvaluator.baselineShifts(hours: 72) == [3 * day, 6 * day])
        #expect(GuardEvaluator.baselineShifts(hours: 168) == [7 * day])
        #expect(GuardEvaluator.baselineShifts(hours: 169).isEmpty)
        // 30 hours watched: the baseline is the two-day spans 2, 4 and 6 days back, all before publication, so a
        // spike after publication is not in its own baseline. Six refunds an hour after publication, two before.
        let rule = try GuardRule(metric: .refunds, action: .notify)
        let hourly = Self.series { $0 >= Self.weekHours ? 6 : 2 }
        let decision = GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.now(after: 30))
        #expect(decision.figures.count == 180 && decision.figures.expectedCount == 60 && decision.figures.baseline == 2)
        #expect(decision.verdict == .tripped)
    }

    @Test func theSearchesFindTheEdgeOfAMonotoneTest() {
        #expect(GuardEvaluator.smallestPassing(from: 3) { $0 >= 1000 } == 1000)
        #expect(GuardEvaluator.smallestPassing(from: 3) { $0 >= 1 } == 3)
        #expect(GuardEvaluator.largestPassing(upTo: 500) { $0 <= 37 } == 37)
        #expect(GuardEvaluator.largestPassing(upTo: 20) { $0 <= 37 } == 20)
        #expect(GuardEvaluator.largestPassing(upTo: 20) { _ in false } == nil)
        #expect(GuardEvaluator.largestPassing(upTo: -1) { _ in true } == nil)
        #expect(GuardEvaluator.clampedCount(12.0) == 12 && GuardEvaluator.clampedCount(-3) == 0)
        #expect(GuardEvaluator.clampedCount(.infinity) == 1 << 40 && GuardEvaluator.clampedCount(1e30) == 1 << 40)
        #expect(GuardEvaluator.clampedCount(.nan) == 0)
    }

    // MARK: simulations (docs/guards.md, "What the simulations show")

    /// (c) 1,000 normal weeks (250 at each of 0.3, 1, 3 and 10 refunds an hour on average), each looked at after
    /// every complete hour of its 72-hour window at the default thresholds: no trip. The evaluator reads complete
    /// hours only, so looking every minute repeats these 72 decisions; the per-look alpha still divides by the
    /// window's 4,320 minutes.
    @Test func normalWeeksNeverTripTheDefaultGuard() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        var rng = SeededGenerator(seed: 3801)
        let levels = [0.3, 1, 3, 10]
        var trips = 0
        var looks = 0
        var smallest = 1.0
        var heldByRelativeChange = 0
        for week in 0..<1000 {
            let hourly = SimulatedWeek.hourly(&rng, base: levels[week % levels.count], phase: Int(rng.next() % 24),
                                            weekday: Int(rng.next() % 7))
            var tripped = false
            for hours in 1...72 {
                let decision = GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.now(after: hours))
                looks += 1
                tripped = tripped || decision.verdict == .tripped
                if decision.figures.count >= rule.minimumCount {
                    smallest = min(smallest, decision.figures.pValue)
                    if decision.figures.pValue <= decision.figures.perLookAlpha { heldByRelativeChange += 1 }
                }
            }
            if tripped { trips += 1 }
        }
        print("guard simulation (c): 1000 normal weeks, \(looks) hourly looks at the default thresholds: \(trips) weeks tripped; smallest p-value at or above the minimum count \(smallest) (per-look alpha \(rule.alpha / 4320)); looks below the per-look alpha held by the minimum relative change: \(heldByRelativeChange)")
        #expect(looks == 72_000)
        #expect(trips == 0)
    }

    /// (d) A refund spike after publication (from the third hour on, 1 refund an hour on average before) trips the
    /// default guard in each of 200 runs: ×3 within 36 hours of the spike's start, ×5 within 18 (the seeded runs took
    /// at most 30 and 13; the bounds leave room for another seed). ×2 is printed for the note: most runs, not all,
    /// trip inside the 72 hours.
    @Test func aRefundSpikeTripsTheDefaultGuardWithinHours() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        var rng = SeededGenerator(seed: 3802)
        var summary: [String] = []
        var worst: [Double: Int] = [:]
        for factor in [2.0, 3, 5] {
            var delays: [Int] = []
            var missed = 0
            for _ in 0..<200 {
                let spikeFrom = 2
                let hourly = SimulatedWeek.hourly(&rng, base: 1, phase: Int(rng.next() % 24), weekday: Int(rng.next() % 7),
                                                factor: factor, spikeFrom: spikeFrom)
                let tripAt = (1...72).first { hours in
                    GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.now(after: hours)).verdict == .tripped
                }
                if let tripAt { delays.append(tripAt - spikeFrom) } else { missed += 1 }
            }
            delays.sort()
            let median = delays.isEmpty ? -1 : delays[delays.count / 2]
            worst[factor] = missed > 0 ? Int.max : (delays.last ?? Int.max)
            summary.append("×\(Int(factor)): tripped \(delays.count)/200, hours after the spike's start median \(median), max \(delays.last ?? -1)")
        }
        print("guard simulation (d): refunds 1/h, spike from hour 2: " + summary.joined(separator: "; "))
        #expect((worst[3] ?? .max) <= 36)
        #expect((worst[5] ?? .max) <= 18)
    }

    /// The simulations look once an hour because a look every minute reads the same complete hours: over 10 weeks
    /// (half with a ×4 spike), every minute's decision of the window equals the decision at its hour's first minute.
    @Test func aLookEveryMinuteRepeatsTheHoursDecision() throws {
        let rule = try GuardRule(metric: .refunds, action: .rollback)
        var rng = SeededGenerator(seed: 3805)
        var trippedLooks = 0
        var differing = 0
        for week in 0..<10 {
            let hourly = SimulatedWeek.hourly(&rng, base: 2, phase: Int(rng.next() % 24), weekday: Int(rng.next() % 7),
                                            factor: week % 2 == 0 ? 1 : 4, spikeFrom: 3)
            var hourDecision: GuardDecision?
            var minute = Self.publishedAt
            while minute < Self.publishedAt + 72 * Self.hour {
                let decision = GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: minute)
                if minute == Self.publishedAt || (minute - Self.seriesStart) % Self.hour == 0 {
                    hourDecision = decision
                } else if decision != hourDecision {
                    differing += 1
                }
                if decision.verdict == .tripped { trippedLooks += 1 }
                minute += 60_000
            }
        }
        #expect(differing == 0)
        #expect(trippedLooks > 0, "the spiking weeks trip, so the comparison covers tripped decisions too")
    }

    /// A launch: active subscriptions grow 10 % a day and refunds with them. Per hour that is a rise, which trips
    /// the count guard in some weeks (61 of 200 with this seed; it is a rise, not a fault); per active
    /// subscription-hour it is none, in any of the 200 weeks. Printed for the note.
    @Test func aRateGuardIgnoresAGrowingBaseThatACountGuardCatches() throws {
        let perHour = try GuardRule(metric: .refunds, action: .notify)
        let perActive = try GuardRule(metric: .refunds, measure: .perActive, action: .notify)
        var rng = SeededGenerator(seed: 3806)
        var countTrips = 0
        var rateTrips = 0
        for _ in 0..<200 {
            let hourly = SimulatedWeek.launch(&rng, phase: Int(rng.next() % 24))
            func trips(_ rule: GuardRule) -> Bool {
                (1...72).contains { GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.now(after: $0)).verdict == .tripped }
            }
            if trips(perHour) { countTrips += 1 }
            if trips(perActive) { rateTrips += 1 }
        }
        print("guard simulation (growth): 200 launch weeks, active +10 % a day, refunds in proportion: per hour \(countTrips) tripped, per active subscription-hour \(rateTrips)")
        #expect(rateTrips == 0)
        #expect(countTrips > 0, "the growth is large enough to matter per hour")
    }

    /// A paywall that stops selling after a change: starts at 3 an hour on average, from the third hour after
    /// publication none (a broken purchase) or half, 200 runs each. The default guard on `started` trips on the
    /// fall; with no starts at all it trips within 24 hours in every run (with this seed: median 7, at most 16).
    /// Printed for the note.
    @Test func aBrokenPaywallTripsAStartedGuardWithinHours() throws {
        let rule = try GuardRule(metric: .started, action: .rollback)
        var rng = SeededGenerator(seed: 3807)
        var summary: [String] = []
        var worstBroken = Int.max
        for factor in [0.0, 0.5] {
            var delays: [Int] = []
            for _ in 0..<200 {
                let hourly = SimulatedWeek.hourly(&rng, base: 3, phase: Int(rng.next() % 24), weekday: Int(rng.next() % 7),
                                                factor: factor, spikeFrom: 2)
                if let tripAt = (1...72).first(where: { hours in
                    GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: Self.publishedAt, now: Self.now(after: hours)).verdict == .tripped
                }) {
                    delays.append(tripAt - 2)
                }
            }
            delays.sort()
            if factor == 0 { worstBroken = delays.count == 200 ? (delays.last ?? .max) : .max }
            summary.append("×\(factor): tripped \(delays.count)/200, hours after the fall began median \(delays.isEmpty ? -1 : delays[delays.count / 2]), max \(delays.last ?? -1)")
        }
        print("guard simulation (fall): started 3/h, fall from hour 2: " + summary.joined(separator: "; "))
        #expect(worstBroken <= 24)
    }
}

