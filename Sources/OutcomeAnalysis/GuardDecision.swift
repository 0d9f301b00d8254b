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
