import AppStoreNotifications

/// Decides whether a guard holds or trips, from hourly outcomes (docs/guards.md). Pure: the service reads the
/// notifications, computes the hourly report from publication − 7 days to now, and calls this every minute.
///
/// Only complete hours are tested (the hour holding `now` is not yet over): from the hour of publication to the last
/// complete one, against the same times of day in the week before publication (`baselineShifts`: the seven days
/// before for up to a day watched, fewer spans of whole days for longer). Under "no change" the watched count `X` and
/// the previous week's `Y` are Poisson with means proportional to their exposures (hours, starts, or active
/// subscription-hours), so given `X + Y`, `X` is binomial with p₀ = exposure of X / both exposures: an exact test
/// that carries the baseline's own noise. A fixed floor or ceiling tests `X` against Poisson(level × exposure).
/// One look trips at p ≤ alpha / (window minutes): Bonferroni over every minute's look of the window, so an
/// unchanged outcome trips the guard with a chance of at most alpha over the whole window, however the looks fall.
public enum GuardEvaluator {
    /// How often the service looks: the per-look alpha divides the rule's alpha by the window's looks.
    public static let looksPerHour = 60

    private static let hour = OutcomeBucket.hour.milliseconds

    /// Evaluates `rule` on an hourly report; `.notEnoughData` when the report is not in hours.
    public static func evaluate(rule: GuardRule, hourly: OutcomeReport, publishedAt: Int64, now: Int64) -> GuardDecision {
        guard let series = HourlyOutcomes(report: hourly, metric: rule.metric) else {
            return GuardDecision(verdict: .notEnoughData, figures: .none)
        }
        return evaluate(rule: rule, hourly: series, publishedAt: publishedAt, now: now)
    }

    /// Evaluates `rule` on hourly series that cover the hour of `publishedAt` − 7 days to the last complete hour before `now`.
    public static func evaluate(rule: GuardRule, hourly: HourlyOutcomes, publishedAt: Int64, now: Int64) -> GuardDecision {
        // A publication time near the end of Int64 (a corrupt row) must not trap: its window ends at the end of time.
        let (sum, overflow) = publishedAt.addingReportingOverflow(Int64(rule.windowHours) * hour)
        let windowEnd = overflow ? Int64.max : sum
        guard now >= publishedAt, now < windowEnd else { return GuardDecision(verdict: .outsideWindow, figures: .none) }
        let perLookAlpha = rule.alpha / Double(rule.windowHours * looksPerHour)
        var figures = GuardFigures.none
        figures.perLookAlpha = perLookAlpha
        let first = OutcomeBucket.hour.floor(publishedAt)
        let hours = Int((OutcomeBucket.hour.floor(now) - first) / hour)
        figures.hours = hours
        guard hours > 0, let start = hourly.index(ofHourStarting: first), start + hours <= hourly.hours else {
            return GuardDecision(verdict: .notEnoughData, figures: figures)
        }
        let watched = start..<(start + hours)
        let count = watched.reduce(0) { $0 + hourly.counts[$1] }
        let exposure = Self.exposure(rule.measure, hourly, watched)
        figures.count = count
        guard exposure > 0 else { return GuardDecision(verdict: .notEnoughData, figures: figures) }
        figures.observed = Double(count) / exposure
        let test: (pValue: Double, expected: Double, baseline: Double, threshold: Int?, trips: Bool)
        switch rule.baseline {
        case .previousWeek:
            var previousCount = 0
            var previousExposure = 0.0
            for shift in baselineShifts(hours: hours) {
                let shifted = start - shift
                guard shifted >= 0 else { return GuardDecision(verdict: .notEnoughData, figures: figures) }
                let range = shifted..<(shifted + hours)
                previousCount += range.reduce(0) { $0 + hourly.counts[$1] }
                previousExposure += Self.exposure(rule.measure, hourly, range)
            }
            guard previousExposure > 0 else { return GuardDecision(verdict: .notEnoughData, figures: figures) }
            test = previousWeekTest(rule, count: count, exposure: exposure, previousCount: previousCount,
                                    previousExposure: previousExposure, alpha: perLookAlpha)
        case .floor(let level), .ceiling(let level):
            test = fixedLevelTest(rule, level: level, count: count, exposure: exposure, alpha: perLookAlpha)
        }
        figures.pValue = test.pValue
        figures.expectedCount = test.expected
        figures.baseline = test.baseline
        figures.threshold = test.threshold.map { Double($0) / exposure }
        return GuardDecision(verdict: test.trips ? .tripped : .held, figures: figures)
    }

    /// How many hours back each of the previous week's spans starts: whole days, so each span has the watched
    /// hours' times of day, and as many spans of the watched length (rounded up to whole days) as fit in the 7 days
    /// before publication without overlapping each other or the watched hours: 7 spans for up to 24 watched hours,
    /// 3 for up to 48, 2 for up to 72, 1 for up to 168. Disjoint spans keep the counts independent, which the exact
    /// test needs.
    static func baselineShifts(hours: Int) -> [Int] {
        let days = max(1, (hours + 23) / 24)
        let spans = 7 / days
        return spans >= 1 ? (1...spans).map { 24 * days * $0 } : []
    }

    /// The watched hours' exposure in the measure's unit: hours, starts, or active subscription-hours.
    private static func exposure(_ measure: GuardMeasure, _ hourly: HourlyOutcomes, _ range: Range<Int>) -> Double {
        switch measure {
        case .perHour: Double(range.count)
        case .perStarted: Double(range.reduce(0) { $0 + hourly.started[$1] })
        case .perActive: Double(range.reduce(0) { $0 + hourly.active[$1] })
        }
    }

    /// X against the previous week's Y: given X + Y, X ~ Binomial(X + Y, p₀) under "no change".
    private static func previousWeekTest(_ rule: GuardRule, count: Int, exposure: Double, previousCount: Int,
                                         previousExposure: Double, alpha: Double)
        -> (pValue: Double, expected: Double, baseline: Double, threshold: Int?, trips: Bool) {
        let p0 = exposure / (exposure + previousExposure)
        let expected = Double(previousCount) * exposure / previousExposure
        let baseline = Double(previousCount) / previousExposure
        let factor = 1 + rule.minimumRelativeChange
        if rule.tripsOnRise {
            let pValue = TailProbability.binomialUpper(n: count + previousCount, p: p0, k: count)
            let least = max(rule.minimumCount, clampedCount((expected * factor).rounded(.up)))
            let threshold = smallestPassing(from: least) {
                TailProbability.binomialUpper(n: $0 + previousCount, p: p0, k: $0) <= alpha
            }
            return (pValue, expected, baseline, threshold, count >= threshold)
        }
        let pValue = TailProbability.binomialLower(n: count + previousCount, p: p0, k: count)
        let most = expected >= Double(rule.minimumCount) ? clampedCount((expected / factor).rounded(.down)) : -1
        let threshold = largestPassing(upTo: most) {
            TailProbability.binomialLower(n: $0 + previousCount, p: p0, k: $0) <= alpha
        }
        return (pValue, expected, baseline, threshold, threshold.map { count <= $0 } ?? false)
    }

    /// X against Poisson(level × exposure): above a ceiling, or below a floor.
    private static func fixedLevelTest(_ rule: GuardRule, level: Double, count: Int, exposure: Double, alpha: Double)
        -> (pValue: Double, expected: Double, baseline: Double, threshold: Int?, trips: Bool) {
        let mean = level * exposure
        if rule.tripsOnRise {
            let pValue = TailProbability.poissonUpper(mean: mean, k: count)
            let threshold = smallestPassing(from: rule.minimumCount) { TailProbability.poissonUpper(mean: mean, k: $0) <= alpha }
            return (pValue, mean, level, threshold, count >= threshold)
        }
        let pValue = TailProbability.poissonLower(mean: mean, k: count)
        let most = mean >= Double(rule.minimumCount) ? clampedCount(mean.rounded(.down)) : -1
        let threshold = largestPassing(upTo: most) { TailProbability.poissonLower(mean: mean, k: $0) <= alpha }
        return (pValue, mean, level, threshold, threshold.map { count <= $0 } ?? false)
    }

    /// A count from a computed expectation, kept within what the searches handle (an absurd exposure ratio must
    /// not trap the conversion to Int).
    static func clampedCount(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? 1 << 40 : 0 }
        return Int(min(max(value, 0), Double(1 << 40)))
    }

    /// The smallest x ≥ `least` that passes, for a test that, once passed, passes for every larger x (the tail
    /// shrinks as x grows): doubling, then bisection.
    static func smallestPassing(from least: Int, _ passes: (Int) -> Bool) -> Int {
        var low = max(0, least)
        if passes(low) { return low }
        var step = 1
        var high = low + step
        while !passes(high), high < (1 << 40) {
            low = high
            step *= 2
            high = low + step
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if passes(middle) { high = middle } else { low = middle }
        }
        return high
    }

    /// The largest x in 0...`most` that passes, for a test that passes for every smaller x once it passes; nil when
    /// not even 0 does.
    static func largestPassing(upTo most: Int, _ passes: (Int) -> Bool) -> Int? {
        guard most >= 0, passes(0) else { return nil }
        if passes(most) { return most }
        var low = 0
        var high = most
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if passes(middle) { low = middle } else { high = middle }
        }
        return low
    }
}
