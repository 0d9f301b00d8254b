import AppStoreNotifications

/// A guard on a change: which outcome it watches, against what, for how long, and what it does when the outcome
/// turns bad (docs/guards.md). Stored with the change as a small JSON object:
///
/// ```json
/// {"metric": "refunds", "measure": "perHour", "baseline": "previousWeek", "minimumCount": 5,
///  "windowHours": 72, "action": "rollback", "alpha": 0.01, "minimumRelativeChange": 0.5}
/// ```
///
/// `baseline` `floor` or `ceiling` needs `threshold` (in the measure's unit). Every field but `metric` and `action`
/// may be left out and takes the default below; `GuardRuleError` names the field that is wrong.
public struct GuardRule: Sendable, Equatable, Hashable {
    /// The outcome metrics a guard may watch: those a bad change moves within days.
    public static let guardedMetrics: [OutcomeMetric] = [.refunds, .autoRenewOff, .billingProblems, .started, .introConversions]

    /// The watched outcome.
    public var metric: OutcomeMetric
    /// A count per hour, or a rate per started subscription or per active subscription-hour.
    public var measure: GuardMeasure
    /// What the watched hours are compared with.
    public var baseline: GuardBaseline
    /// Below this many notifications (the observed count when the guard trips on a rise, the expected count when it
    /// trips on a fall) the guard never trips.
    public var minimumCount: Int
    /// How long after publication the guard watches, in hours.
    public var windowHours: Int
    /// What the service does when the guard trips.
    public var action: GuardAction
    /// The chance that a guard on an unchanged outcome trips at all during its window, every minute's look counted
    /// (docs/guards.md, "Why these thresholds").
    public var alpha: Double
    /// Against the previous week, the guard trips only when the change is at least this large: observed ≥ expected ×
    /// (1 + this) on a rise, observed ≤ expected / (1 + this) on a fall. Ignored for a fixed floor or ceiling.
    public var minimumRelativeChange: Double

    /// The defaults: see docs/guards.md for why.
    public static let defaultMinimumCount = 5
    /// Three days: most refunds and renewal-state changes a change causes arrive within them.
    public static let defaultWindowHours = 72
    /// A 1 % chance that an unchanged outcome trips the guard in its whole window.
    public static let defaultAlpha = 0.01
    /// +50 % (or −33 %): larger than the day-of-week swings the previous week's average does not cancel.
    public static let defaultMinimumRelativeChange = 0.5

    /// A rule, validated.
    public init(metric: OutcomeMetric, measure: GuardMeasure = .perHour, baseline: GuardBaseline = .previousWeek,
                minimumCount: Int = GuardRule.defaultMinimumCount, windowHours: Int = GuardRule.defaultWindowHours,
                action: GuardAction, alpha: Double = GuardRule.defaultAlpha,
                minimumRelativeChange: Double = GuardRule.defaultMinimumRelativeChange) throws(GuardRuleError) {
        self.metric = metric
        self.measure = measure
        self.baseline = baseline
        self.minimumCount = minimumCount
        self.windowHours = windowHours
        self.action = action
        self.alpha = alpha
        self.minimumRelativeChange = minimumRelativeChange
        try validate()
    }

    /// Whether the guard trips on a rise (refunds, auto-renew off, billing problems) or on a fall (started,
    /// intro conversions) against the previous week. A fixed floor trips on a fall, a ceiling on a rise, whatever the metric.
    public var tripsOnRise: Bool {
        switch baseline {
        case .floor: false
        case .ceiling: true
        case .previousWeek: !(metric == .started || metric == .introConversions)
        }
    }

    /// Throws the first field that is out of range.
    public func validate() throws(GuardRuleError) {
        guard Self.guardedMetrics.contains(metric) else {
            throw GuardRuleError(field: "metric", message: "must be one of \(Self.guardedMetrics.map(\.rawValue).joined(separator: ", "))")
        }
        if metric == .started, measure == .perStarted {
            throw GuardRuleError(field: "measure", message: "started per started is always 1: use perHour or perActive")
        }
        switch baseline {
        case .previousWeek: break
        case .floor(let value), .ceiling(let value):
            guard value.isFinite, value >= 0 else { throw GuardRuleError(field: "threshold", message: "must be a number ≥ 0") }
            if case .floor = baseline, value == 0 {
                throw GuardRuleError(field: "threshold", message: "a floor of 0 can never trip")
            }
        }
        if baseline == .previousWeek, windowHours > 24 * 7 {
            throw GuardRuleError(field: "windowHours", message: "a previousWeek baseline watches at most 168 hours (one week before publication)")
        }
        guard minimumCount >= 1 else { throw GuardRuleError(field: "minimumCount", message: "must be at least 1") }
        guard (1...(24 * 30)).contains(windowHours) else {
            throw GuardRuleError(field: "windowHours", message: "must be between 1 and 720")
        }
        guard alpha.isFinite, alpha > 0, alpha < 0.5 else { throw GuardRuleError(field: "alpha", message: "must be in (0, 0.5)") }
        guard minimumRelativeChange.isFinite, minimumRelativeChange >= 0, minimumRelativeChange <= 100 else {
            throw GuardRuleError(field: "minimumRelativeChange", message: "must be between 0 and 100")
        }
    }
}

/// What a guard measures over its watched hours.
public enum GuardMeasure: String, Sendable, CaseIterable {
    /// The metric's count per hour.
    case perHour
    /// The metric's count per subscription started in the same hours (refunds per started, ...).
    case perStarted
    /// The metric's count per active subscription-hour: the sum over the hours of `active` at each hour's end.
    case perActive
}

/// What a guard compares its measure with.
public enum GuardBaseline: Sendable, Equatable, Hashable {
    /// The same times of day in the week before publication: for up to 24 watched hours, the same hours of each
    /// of the 7 days before; for longer, as many earlier spans of whole days as fit in those 7 days (3 for up to 48
    /// hours, 2 for up to 72, 1 for up to 168). Their mean, with their noise taken into account.
    case previousWeek
    /// A fixed level in the measure's unit; the guard trips when the measure is clearly below it.
    case floor(Double)
    /// A fixed level in the measure's unit; the guard trips when the measure is clearly above it.
    case ceiling(Double)
}

/// What the service does when a guard trips.
public enum GuardAction: String, Sendable, CaseIterable {
    /// Audit and send the webhook event only.
    case notify
    /// Also pause the environment's pending schedules.
    case pauseSchedules
    /// Also publish the version before the change (an ordinary audited publish naming the guard and its figures).
    case rollback
}
