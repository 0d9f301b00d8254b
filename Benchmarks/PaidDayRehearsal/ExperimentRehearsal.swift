import AppStoreNotifications
import Foundation
import OutcomeAnalysis

/// Price experiments through the real receiver (docs/guards.md, "Through the real receiver"): each experiment is a
/// week of notifications drawn from a known truth (two arms 50/50 with their own product ids), signed, posted to
/// `POST /v1/appstore/notifications`, and read back from `GET /v1/appstore/experiment` with explicit arms. Half the
/// experiments have equal prices and equal conversion (a decision is a false positive), half a higher price that
/// converts `effect` less (a decision for the cheaper arm is the power).
public enum ExperimentRehearsal {
    /// What to simulate.
    public struct Settings: Sendable {
        /// Experiments with equal prices.
        public var experiments = 1_000
        /// Experiments with the effect.
        public var effectExperiments = 1_000
        /// Installs a day over both arms.
        public var installsPerDay = 8_000.0
        /// The cheaper arm's conversion (installs that start a subscription).
        public var conversion = 0.02
        /// How much less the dearer arm converts in the effect experiments (0.25: a quarter less).
        public var effect = 0.25
        /// Days of each experiment.
        public var days = 7
        /// Experiments per server: the routes read every stored record of the retention, so one server for all
        /// would make each report read every experiment's notifications.
        public var perServer = 25
        /// Reports compared in full with `ExperimentAnalysis.analyze` on the generated truth, per server.
        public var checkedPerServer = 2
        /// Connections posting at once.
        public var connections = 32
        /// The level the comparisons decide at.
        public var alpha = 0.05
        /// The first seed (experiment `i` draws from `seed + i`).
        public var seed: UInt64 = 38_000
        /// Defaults: 1,000 experiments of each kind, 8,000 installs a day, 2 % against 1.5 %, a week each.
        public init() {}
    }

    /// What was measured.
    public struct Figures: Sendable, Equatable {
        /// Experiments with equal prices, and how many of them decided (false positives).
        public var equalExperiments = 0
        /// Of them, decided.
        public var falsePositives = 0
        /// Experiments with the effect.
        public var effectExperiments = 0
        /// Of them, decided for the cheaper arm.
        public var detected = 0
        /// Of them, decided for the dearer arm (a wrong decision).
        public var wrongDirection = 0
        /// Notifications posted (every one answered 200).
        public var notifications = 0
        /// Subscriptions started over all experiments (truth).
        public var started = 0
        /// Reports compared with the analysis of the truth, and how many were equal.
        public var reportsChecked = 0
        /// Of them, equal in every field.
        public var reportsEqual = 0
        /// The differences found (at most 20).
        public var differences: [String] = []
        /// Seconds of posting and reading.
        public var seconds = 0.0

        /// The false-positive rate and its Monte Carlo standard error.
        public var falsePositiveRate: (rate: Double, standardError: Double) { Self.rate(falsePositives, equalExperiments) }
        /// The power and its Monte Carlo standard error.
        public var power: (rate: Double, standardError: Double) { Self.rate(detected, effectExperiments) }

        static func rate(_ count: Int, _ total: Int) -> (rate: Double, standardError: Double) {
            guard total > 0 else { return (0, 0) }
            let p = Double(count) / Double(total)
            return (p, (p * (1 - p) / Double(total)).squareRoot())
        }
    }

    /// Whether experiment `index` has equal prices: the two kinds alternate while both last (so every server, and a
    /// run stopped early, has both), then the rest are of the kind there are more of.
    public static func isEqual(_ index: Int, _ settings: Settings) -> Bool {
        let paired = 2 * min(settings.experiments, settings.effectExperiments)
        return index < paired ? index % 2 == 0 : settings.experiments > settings.effectExperiments
    }

    /// The two arms of experiment `index`: equal prices and conversion, or the dearer arm converting `effect` less.
    public static func truth(_ index: Int, _ settings: Settings) -> NotificationWeek.Truth {
        let equal = isEqual(index, settings)
        let arms = [
            ArmTruth(product: "rehearsal.e\(index).a", share: 50, listPrice: 4990, conversion: settings.conversion),
            ArmTruth(product: "rehearsal.e\(index).b", share: 50, listPrice: equal ? 4990 : 5990,
                     conversion: equal ? settings.conversion : settings.conversion * (1 - settings.effect)),
        ]
        var truth = NotificationWeek.Truth(arms: arms, installsPerDay: settings.installsPerDay)
        truth.days = settings.days
        return truth
    }

    /// The experiment's arms as the analysis takes them.
    public static func arms(_ truth: NotificationWeek.Truth) -> [ExperimentArm] {
        truth.arms.map { ExperimentArm(product: $0.product, share: $0.share, listPrice: $0.listPrice, currency: $0.currency) }
    }

    /// The explicit-arm route's query for `truth` over [`start`, `end`).
    public static func path(_ truth: NotificationWeek.Truth, start: Int64, end: Int64, alpha: Double) -> String {
        let arms = truth.arms.map { arm in
            "arm=\(arm.product):\(Int(arm.share)):\(Double(arm.listPrice) / 1000):\(arm.currency)"
        }
        return "/v1/appstore/experiment?" + arms.joined(separator: "&")
            + "&from=\(rfc3339(start))&to=\(rfc3339(end))&alpha=\(alpha)"
    }

    /// Runs every experiment, `settings.perServer` per fresh server; `start` is the first day (ms, midnight UTC).
    public static func run(_ settings: Settings, flagsDirectory: String, start: Int64,
                           progress: (String) -> Void = { _ in }) throws -> Figures {
        var figures = Figures()
        let began = Date()
        let total = settings.experiments + settings.effectExperiments
        var first = 0
        while first < total {
            let indices = Array(first..<min(total, first + settings.perServer))
            first += settings.perServer
            let server = try ReceiverServer(flagsDirectory: flagsDirectory)
            defer { server.stop() }
            let weeks = indices.map { index in
                NotificationWeek(truth: truth(index, settings), start: start, tag: "e\(index)", seed: settings.seed &+ UInt64(index))
            }
            let all = weeks.flatMap(\.notifications).sorted { ($0.signedDate, $0.uuid) < ($1.signedDate, $1.uuid) }
            try server.post(all, connections: settings.connections)
            figures.notifications += all.count
            for (position, index) in indices.enumerated() {
                let week = weeks[position]
                let experiment = truth(index, settings)
                figures.started += week.started.reduce(0, +)
                let report = try server.getJSON(path(experiment, start: week.start, end: week.end, alpha: settings.alpha))
                let comparison = try ReportReading.comparison(report)
                if isEqual(index, settings) {
                    figures.equalExperiments += 1
                    if comparison.decided { figures.falsePositives += 1 }
                } else {
                    figures.effectExperiments += 1
                    if comparison.decided { if comparison.ratio > 1 { figures.detected += 1 } else { figures.wrongDirection += 1 } }
                }
                if position < settings.checkedPerServer {
                    let expected = try ExperimentAnalysis.analyze(arms: arms(experiment), history: week.notifications.map { $0.record() },
                                                                  from: week.start, to: week.end, alpha: settings.alpha)
                    let differences = ReportReading.differences(report, expected, truthStarted: week.started)
                    figures.reportsChecked += 1
                    if differences.isEmpty { figures.reportsEqual += 1 }
                    for difference in differences where figures.differences.count < 20 {
                        figures.differences.append("experiment \(index): \(difference)")
                    }
                }
            }
            progress(String(format: "%d of %d experiments, %d notifications, %.0f s: false positives %d of %d, detected %d of %d (wrong arm %d), reports equal %d of %d",
                            min(first, total), total, figures.notifications, Date().timeIntervalSince(began), figures.falsePositives,
                            figures.equalExperiments, figures.detected, figures.effectExperiments, figures.wrongDirection,
                            figures.reportsEqual, figures.reportsChecked))
        }
        figures.seconds = Date().timeIntervalSince(began)
        return figures
    }

    /// `ms` as RFC 3339 UTC with milliseconds.
    static func rfc3339(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// The figures as the command prints them.
    public static func report(_ figures: Figures, _ settings: Settings) -> String {
        let fp = figures.falsePositiveRate, power = figures.power
        return """
        == price experiments through the receiver
        experiments: \(figures.equalExperiments) at equal prices, \(figures.effectExperiments) with the dearer arm converting \(Int(settings.effect * 100)) % less; \(Int(settings.installsPerDay)) installs a day split 50/50, conversion \(settings.conversion * 100) %, \(settings.days) days, alpha \(settings.alpha)
        notifications posted: \(figures.notifications) (every one 200), subscriptions started: \(figures.started)
        false positives: \(figures.falsePositives) of \(figures.equalExperiments) = \(String(format: "%.4f", fp.rate)) (Monte Carlo s.e. \(String(format: "%.4f", fp.standardError)))
        power: \(figures.detected) of \(figures.effectExperiments) = \(String(format: "%.4f", power.rate)) (s.e. \(String(format: "%.4f", power.standardError))); decided for the wrong arm: \(figures.wrongDirection)
        server reports equal to the analysis of the truth: \(figures.reportsEqual) of \(figures.reportsChecked)\(figures.differences.isEmpty ? "" : "\n  " + figures.differences.joined(separator: "\n  "))
        time: \(String(format: "%.1f", figures.seconds)) s

        """
    }
}
