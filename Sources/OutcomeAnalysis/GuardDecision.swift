/// One evaluation of a guard: the verdict and the figures it rests on, which the audit entry, the webhook event and
/// a rollback's message carry.
public struct GuardDecision: Sendable, Equatable {
    /// What the guard concluded.
    public var verdict: GuardVerdict
    /// The numbers behind it.
    public var figures: GuardFigures

    /// A decision.
    public init(verdict: GuardVerdict, figures: GuardFigures) {
        self.verdict = verdict
        self.figures = figures
    }
}

/// A guard's conclusion at one look.
public enum GuardVerdict: String, Sendable, CaseIterable {
    /// Watched, and the outcome is not clearly worse.
    case held
    /// The outcome is clearly worse: the rule's action is due.
    case tripped
    /// Before publication or after the watch window: nothing was tested.
    case outsideWindow
    /// The hours needed are not all in the report (no complete hour since publication yet, the previous week not
    /// covered, the report not hourly), or the rate's exposure is zero.
    case notEnoughData
}

/// The figures of a decision, in the rule's measure (count per hour, or count per started / per active
/// subscription-hour), so a person can read them next to the chart.
public struct GuardFigures: Sendable, Equatable {
    /// The measure over the watched hours.
    public var observed: Double
    /// The previous week's measure over the same hours of day, or the fixed floor or ceiling.
    public var baseline: Double
    /// The measure at which the guard trips with the data so far (the smallest on a rise, the largest on a fall);
    /// nil when no count could trip it yet.
    public var threshold: Double?
    /// The watched metric's count over the watched hours.
    public var count: Int
    /// The count the baseline predicts for the watched hours.
    public var expectedCount: Double
    /// The one-sided p-value of the count (Poisson, or binomial conditional on the two weeks' total).
    public var pValue: Double
    /// The p-value at or below which a single look trips: the rule's alpha over its window's minutes.
    public var perLookAlpha: Double
    /// The complete hours watched so far.
    public var hours: Int

    /// Figures.
    public init(observed: Double, baseline: Double, threshold: Double?, count: Int, expectedCount: Double,
                pValue: Double, perLookAlpha: Double, hours: Int) {
        self.observed = observed
        self.baseline = baseline
        self.threshold = threshold
        self.count = count
        self.expectedCount = expectedCount
        self.pValue = pValue
        self.perLookAlpha = perLookAlpha
        self.hours = hours
    }

    /// Every figure zero: nothing was tested.
    public static let none = GuardFigures(observed: 0, baseline: 0, threshold: nil, count: 0, expectedCount: 0,
                                          pValue: 1, perLookAlpha: 0, hours: 0)
}

extension GuardDecision {
    /// One line for a person, naming the guard and its figures: the audit entry's and a rollback's message, e.g.
    /// `guard on refunds tripped: 6 per hour over 6 hours against 2 the week before (trips at 3.17); 36 counted,
    /// 12 expected, p = 3.1e-12 (per look 2.3e-06)`.
    public func message(for rule: GuardRule) -> String {
        let head = "guard on \(rule.metric.rawValue) \(verdict.words)"
        guard figures.hours > 0 else { return head }
        let unit = switch rule.measure {
        case .perHour: "per hour"
        case .perStarted: "per started subscription"
        case .perActive: "per active subscription-hour"
        }
        let against = switch rule.baseline {
        case .previousWeek: "the week before"
        case .floor: "a floor of"
        case .ceiling: "a ceiling of"
        }
        let value = rule.baseline == .previousWeek ? "\(Self.short(figures.baseline)) \(against)" : "\(against) \(Self.short(figures.baseline))"
        var text = "\(head): \(Self.short(figures.observed)) \(unit) over \(figures.hours) hour\(figures.hours == 1 ? "" : "s") against \(value)"
        if let threshold = figures.threshold { text += " (trips at \(Self.short(threshold)))" }
        text += "; \(figures.count) counted, \(Self.short(figures.expectedCount)) expected, p = \(Self.scientific(figures.pValue))"
        return text + " (per look \(Self.scientific(figures.perLookAlpha)))"
    }

    /// Up to two decimals, trailing zeros dropped (6, 3.17, 0.1); below 1, two significant digits (0.0012), since
    /// rates per subscription are small.
    static func short(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value != 0, abs(value) < 1 {
            var scale = 100.0
            var decimals = 2
            while abs(value) * scale < 10, decimals < 12 {
                scale *= 10
                decimals += 1
            }
            var digits = String(Int64((abs(value) * scale).rounded()))
            if digits.count > decimals { return value < 0 ? "-1" : "1" }
            digits = String(repeating: "0", count: decimals - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            return (value < 0 ? "-0." : "0.") + digits
        }
        let hundredths = (value * 100).rounded()
        guard abs(hundredths) < 1e15 else { return "\(value)" }
        let whole = Int64(hundredths)
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        let fraction = magnitude % 100
        let integer = "\(sign)\(magnitude / 100)"
        if fraction == 0 { return integer }
        return fraction % 10 == 0 ? "\(integer).\(fraction / 10)" : "\(integer).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Two significant digits in scientific notation: 3.1e-12.
    static func scientific(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return value == 0 ? "0" : "\(value)" }
        var exponent = 0
        var mantissa = value
        while mantissa >= 10 { mantissa /= 10; exponent += 1 }
        while mantissa < 1 { mantissa *= 10; exponent -= 1 }
        var tenths = Int((mantissa * 10).rounded())
        if tenths >= 100 { tenths /= 10; exponent += 1 }
        let digits = "\(tenths / 10).\(tenths % 10)"
        if exponent == 0 { return digits }
        let sign = exponent < 0 ? "-" : "+"
        let size = abs(exponent)
        return "\(digits)e\(sign)\(size < 10 ? "0" : "")\(size)"
    }
}

extension GuardVerdict {
    /// The verdict in a sentence.
    var words: String {
        switch self {
        case .held: "held"
        case .tripped: "tripped"
        case .outsideWindow: "is outside its window"
        case .notEnoughData: "has not enough data"
        }
    }
}
