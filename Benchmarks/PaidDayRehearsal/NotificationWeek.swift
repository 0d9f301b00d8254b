import FlagKit
import Foundation

/// A week (or more) of App Store Server Notifications drawn from a known truth: installs arrive every hour with the
/// users' day (``DayProfile``), each arm's paywall converts them at its ``ArmTruth/conversion``, and each subscriber
/// follows ``SubscriberBehaviour``. Pure and seeded: one seed, one week, on every platform.
///
/// The starts of an arm in an hour are Poisson with mean installs × share × conversion (a Poisson number of
/// installs, each starting independently, thins to exactly that), so no install without a subscription is drawn.
public struct NotificationWeek: Sendable {
    /// What the week is drawn from.
    public struct Truth: Sendable {
        /// The arms.
        public var arms: [ArmTruth]
        /// Installs a day over all arms (the day's shape spreads them over its hours).
        public var installsPerDay: Double
        /// What subscribers do.
        public var behaviour = SubscriberBehaviour()
        /// Days of notifications (from `start`).
        public var days = 7
        /// Days of subscriptions started before `start` whose notifications are dropped: with a few days of it,
        /// refunds and conversions run at their steady level from the first hour (a guard's baseline needs that).
        public var warmUpDays = 0
        /// From this time on (ms since 1970), refunds are multiplied by `refundFactor` (a synthetic spike).
        public var refundSpikeFrom: Int64 = .max
        /// The spike's factor (the refund chance of a paid period whose refund would come after `refundSpikeFrom`).
        public var refundFactor = 1.0

        /// A truth of `arms` at `installsPerDay`.
        public init(arms: [ArmTruth], installsPerDay: Double) {
            self.arms = arms
            self.installsPerDay = installsPerDay
        }
    }

    /// Milliseconds in an hour and a day.
    public static let hour: Int64 = 3_600_000
    /// Milliseconds in a day.
    public static let day: Int64 = 86_400_000

    /// What the week was drawn from.
    public let truth: Truth
    /// The notifications signed in [`start`, `start` + days), ordered by `signedDate`.
    public let notifications: [SimulatedNotification]
    /// Subscriptions started in the range, per arm (the truth the analysis should find).
    public let started: [Int]
    /// The range.
    public let start: Int64
    /// The range's end.
    public let end: Int64

    /// Draws the week from `truth` starting at `start` (ms, a whole UTC hour); `tag` prefixes every identifier, so
    /// weeks of different tags can share one server.
    public init(truth: Truth, start: Int64, tag: String, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let behaviour = truth.behaviour
        let shares = truth.arms.reduce(0) { $0 + $1.share }
        let end = start + Int64(truth.days) * Self.day
        var notifications: [SimulatedNotification] = []
        var started = Array(repeating: 0, count: truth.arms.count)
        var serial = 0
        for hourIndex in (-truth.warmUpDays * 24)..<(truth.days * 24) {
            let hourStart = start + Int64(hourIndex) * Self.hour
            let shape = DayProfile.normalized[Int((hourStart / Self.hour) % 24)]
            for (armIndex, arm) in truth.arms.enumerated() {
                let mean = truth.installsPerDay / 24 * shape * arm.share / shares * arm.conversion
                for _ in 0..<Self.poisson(mean, &random) {
                    serial += 1
                    let at = hourStart + Int64(Self.uniform(&random) * Double(Self.hour))
                    if at >= start { started[armIndex] += 1 }
                    let subscription = "\(tag)-\(serial)"
                    var events: [(Int64, SimulatedNotification.Kind, Int64)] = []   // signed, kind, expires
                    let freeTrial = Self.uniform(&random) < behaviour.freeTrialShare
                    let trialEnd = at + Int64(behaviour.trialDays) * Self.day
                    let period = Int64(behaviour.periodDays) * Self.day
                    var payments: [Int64] = []
                    if freeTrial {
                        events.append((at, .started(freeTrial: true), trialEnd))
                        if Self.uniform(&random) < behaviour.introConversion {
                            events.append((trialEnd, .renewed, trialEnd + period))
                            payments.append(trialEnd)
                        } else {
                            events.append((at + Int64(Self.uniform(&random) * Double(trialEnd - at)), .autoRenewOff, trialEnd))
                            events.append((trialEnd, .expired, trialEnd))
                        }
                    } else {
                        events.append((at, .started(freeTrial: false), at + period))
                        payments.append(at)
                        if Self.uniform(&random) < behaviour.autoRenewOff {
                            events.append((at + Int64(Self.uniform(&random) * Double(period)), .autoRenewOff, at + period))
                        }
                    }
                    for paidAt in payments {
                        let refundAt = paidAt + Self.hour + Int64(Self.uniform(&random) * Double(Int64(behaviour.refundWithinHours - 1) * Self.hour))
                        let chance = behaviour.refundRate * (refundAt >= truth.refundSpikeFrom ? truth.refundFactor : 1)
                        if Self.uniform(&random) < chance {
                            events.append((refundAt, .refunded(paidAt: paidAt), refundAt))
                        }
                    }
                    for (number, (signed, kind, expires)) in events.enumerated() where signed >= start && signed < end {
                        notifications.append(SimulatedNotification(
                            uuid: "\(subscription)-\(number)", subscription: subscription, transactionID: "\(subscription)-t\(number)",
                            product: arm.product, listPrice: arm.listPrice, currency: arm.currency, signedDate: signed,
                            startedAt: at, expiresAt: expires, kind: kind))
                    }
                }
            }
        }
        notifications.sort { ($0.signedDate, $0.uuid) < ($1.signedDate, $1.uuid) }
        self.truth = truth
        self.notifications = notifications
        self.started = started
        self.start = start
        self.end = end
    }

    /// Uniform in [0, 1), 53 bits.
    static func uniform(_ random: inout SplitMix64) -> Double { Double(random.next() >> 11) * 0x1.0p-53 }

    /// A Poisson draw: Knuth's product of uniforms on pieces of at most 30 (a sum of Poissons is Poisson), so
    /// e^−mean never underflows.
    static func poisson(_ mean: Double, _ random: inout SplitMix64) -> Int {
        var remaining = max(0, mean)
        var total = 0
        while remaining > 0 {
            let piece = min(remaining, 30)
            remaining -= piece
            let limit = Foundation.exp(-piece)
            var product = uniform(&random)
            while product > limit {
                total += 1
                product *= uniform(&random)
            }
        }
        return total
    }
}
