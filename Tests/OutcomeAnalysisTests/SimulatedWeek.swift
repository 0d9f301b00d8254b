@testable import OutcomeAnalysis

/// The guard simulations' outcomes: a week before publication and the 72-hour window after it, hour by hour, laid
/// out as `GuardEvaluatorTests` reads them (series from `seriesStart`, publication a week later).
enum SimulatedWeek {
    /// A day's shape: refunds (like purchases) follow the users' day, lowest at night, highest in the evening.
    static let dayProfile: [Double] = [0.4, 0.3, 0.25, 0.25, 0.3, 0.4, 0.6, 0.8, 1.0, 1.1, 1.2, 1.2,
                                       1.2, 1.2, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.6, 1.3, 0.9, 0.6]
    /// A week's shape: the previous week's mean does not cancel it, the minimum relative change must.
    static let weekProfile: [Double] = [1.0, 0.95, 0.9, 0.95, 1.05, 1.15, 1.1]

    /// One simulated series: Poisson counts around `base` × the day's and week's shape, publication at hour of day
    /// `phase` on weekday `weekday`, multiplied by `factor` from `spikeFrom` hours after publication's hour on.
    static func hourly(_ rng: inout SeededGenerator, base: Double, phase: Int, weekday: Int,
                       factor: Double = 1, spikeFrom: Int = 0) -> HourlyOutcomes {
        let weekHours = GuardEvaluatorTests.weekHours
        let hours = weekHours + 73
        let counts = (0..<hours).map { index -> Int in
            let clock = index + phase + 24 * weekday
            let mean = base * dayProfile[clock % 24] * weekProfile[(clock / 24) % 7]
            return rng.poisson(index >= weekHours + spikeFrom ? mean * factor : mean)
        }
        return HourlyOutcomes(from: GuardEvaluatorTests.seriesStart, counts: counts,
                              started: Array(repeating: 1, count: hours), active: Array(repeating: 1, count: hours))
    }

    /// A launch: 20,000 active subscriptions growing 10 % a day, and refunds in proportion (1 an hour at the start,
    /// times the day's shape), publication at hour of day `phase`.
    static func launch(_ rng: inout SeededGenerator, phase: Int) -> HourlyOutcomes {
        let hours = GuardEvaluatorTests.weekHours + 73
        var growth = 1.0
        var active: [Int] = []
        var counts: [Int] = []
        for index in 0..<hours {
            if index > 0 && index % 24 == 0 { growth *= 1.1 }
            active.append(Int(20_000 * growth))
            counts.append(rng.poisson(growth * dayProfile[(index + phase) % 24]))
        }
        return HourlyOutcomes(from: GuardEvaluatorTests.seriesStart, counts: counts, started: active, active: active)
    }
}
