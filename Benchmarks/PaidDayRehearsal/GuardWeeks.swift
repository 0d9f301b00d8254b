import AppStoreNotifications
import Foundation
import OutcomeAnalysis

/// Normal weeks for the refunds guard through the real receiver: each week is a subscriber population with its own
/// product, steady (a warm-up of subscriptions before the week), refunds at one of `levels` an hour on average with
/// the users' day; its refunds are posted to the receiver and the default guard on refunds per hour is evaluated on
/// the server's hourly outcomes at the end of every hour of its 72-hour window. No week has a real change, so every
/// trip is a false one.
public enum GuardWeeks {
    /// What to simulate.
    public struct Settings: Sendable {
        /// Normal weeks.
        public var weeks = 1_000
        /// Average refunds an hour; the weeks take them in turn.
        public var levels = [0.3, 1.0, 3.0]
        /// Weeks per server (the outcomes route reads every stored record of the retention).
        public var perServer = 50
        /// Connections posting at once.
        public var connections = 32
        /// The first seed (week `i` draws from `seed + i`).
        public var seed: UInt64 = 72_000
        /// The defaults: 1,000 weeks at 0.3, 1 and 3 refunds an hour.
        public init() {}
    }

    /// What was measured.
    public struct Figures: Sendable, Equatable {
        /// Weeks simulated.
        public var weeks = 0
        /// Weeks in which some look tripped the guard.
        public var tripped = 0
        /// Looks evaluated (72 per week).
        public var looks = 0
        /// Looks that reached the minimum count.
        public var looksAtMinimumCount = 0
        /// The smallest p-value of a look that reached the minimum count.
        public var smallestPValue = 1.0
        /// Refund notifications posted (every one answered 200).
        public var notifications = 0
        /// Seconds.
        public var seconds = 0.0
    }

    /// The default guard on refunds per hour, notify only (the weeks count trips, they act on nothing).
    public static func rule() throws -> GuardRule { try GuardRule(metric: .refunds, action: .notify) }

    /// Week `index`: a population whose paid periods are refunded at 10 %, with as many starts an hour as make
    /// `level` refunds an hour (paid periods per start: the paid starts plus the trials that convert), from 6 days of
    /// warm-up (a trial's conversion plus its refund's delay) to 11 days after `start`; publication at `start` + 7 days
    /// + (index mod 24) hours + 30 minutes, so the weeks cover every time of day.
    public static func week(_ index: Int, _ settings: Settings, start: Int64) -> (week: NotificationWeek, publishedAt: Int64) {
        var behaviour = SubscriberBehaviour()
        behaviour.refundRate = 0.1
        let paidPerStart = (1 - behaviour.freeTrialShare) + behaviour.freeTrialShare * behaviour.introConversion
        let level = settings.levels[index % settings.levels.count]
        var truth = NotificationWeek.Truth(arms: [ArmTruth(product: "rehearsal.g\(index)", share: 1, conversion: 1)],
                                           installsPerDay: 24 * level / (paidPerStart * behaviour.refundRate))
        truth.behaviour = behaviour
        truth.days = 11
        truth.warmUpDays = 6
        let week = NotificationWeek(truth: truth, start: start, tag: "g\(index)", seed: settings.seed &+ UInt64(index))
        return (week, start + 7 * NotificationWeek.day + Int64(index % 24) * NotificationWeek.hour + 30 * 60_000)
    }

    /// Runs the weeks, `settings.perServer` per fresh server; `start` is the first day (ms, midnight UTC).
    public static func run(_ settings: Settings, flagsDirectory: String, start: Int64, progress: (String) -> Void = { _ in }) throws -> Figures {
        let rule = try rule()
        var figures = Figures()
        let began = Date()
        var first = 0
        while first < settings.weeks {
            let indices = Array(first..<min(settings.weeks, first + settings.perServer))
            first += settings.perServer
            let server = try ReceiverServer(flagsDirectory: flagsDirectory)
            defer { server.stop() }
            let weeks = indices.map { week($0, settings, start: start) }
            let refunds = weeks.flatMap { $0.week.notifications.filter { if case .refunded = $0.kind { true } else { false } } }
                .sorted { ($0.signedDate, $0.uuid) < ($1.signedDate, $1.uuid) }
            try server.post(refunds, connections: settings.connections)
            figures.notifications += refunds.count
            for (index, (_, publishedAt)) in zip(indices, weeks) {
                let hourly = try hourlyRefunds(server, product: "rehearsal.g\(index)", publishedAt: publishedAt, windowHours: rule.windowHours)
                var tripped = false
                for hour in 1...rule.windowHours {
                    let now = OutcomeBucket.hour.floor(publishedAt) + Int64(hour) * NotificationWeek.hour + 60_000
                    let decision = GuardEvaluator.evaluate(rule: rule, hourly: hourly, publishedAt: publishedAt, now: now)
                    figures.looks += 1
                    if decision.verdict == .tripped { tripped = true }
                    if decision.figures.count >= rule.minimumCount {
                        figures.looksAtMinimumCount += 1
                        figures.smallestPValue = min(figures.smallestPValue, decision.figures.pValue)
                    }
                }
                figures.weeks += 1
                if tripped { figures.tripped += 1 }
            }
            progress(String(format: "%d of %d normal weeks, %d refunds posted, %d tripped, %.0f s", figures.weeks, settings.weeks,
                            figures.notifications, figures.tripped, Date().timeIntervalSince(began)))
        }
        figures.seconds = Date().timeIntervalSince(began)
        return figures
    }

    /// The server's hourly refunds of `product` from publication − 7 days to the window's end
    /// (`GET /v1/appstore/outcomes?bucket=hour`), as the guard job reads them.
    static func hourlyRefunds(_ server: ReceiverServer, product: String, publishedAt: Int64, windowHours: Int) throws -> HourlyOutcomes {
        let from = OutcomeBucket.hour.floor(publishedAt) - 168 * NotificationWeek.hour
        let to = OutcomeBucket.hour.floor(publishedAt) + Int64(windowHours + 1) * NotificationWeek.hour
        let report = try server.getJSON("/v1/appstore/outcomes?bucket=hour&product=\(product)&from=\(ExperimentRehearsal.rfc3339(from))&to=\(ExperimentRehearsal.rfc3339(to))")
        guard let series = report["series"] as? [[String: Any]] else {
            throw ReceiverServer.Failure(description: "no series in the outcomes of \(product)")
        }
        func counts(_ metric: OutcomeMetric) -> [Int] { series.map { ($0[metric.rawValue] as? NSNumber)?.intValue ?? 0 } }
        return HourlyOutcomes(from: from, counts: counts(.refunds), started: counts(.started), active: counts(.active))
    }
}
