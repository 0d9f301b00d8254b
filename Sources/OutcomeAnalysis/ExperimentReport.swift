/// The results of an experiment over a time range (`ExperimentAnalysis.analyze`).
public struct ExperimentReport: Sendable, Equatable {
    /// One per arm, in the arms' order.
    public var arms: [ArmResult]
    /// One per pair of arms (first before second in the arms' order).
    public var comparisons: [ArmComparison]
    /// One per group of arms that show the same terms (same list price and currency, no offer): the only arms whose
    /// started counts must follow the split whatever the prices do. Empty when no two arms share terms.
    public var sampleRatioChecks: [SampleRatioCheck]
    /// The level the comparisons were decided at (before the correction for several pairs).
    public var alpha: Double

    /// A report.
    public init(arms: [ArmResult], comparisons: [ArmComparison], sampleRatioChecks: [SampleRatioCheck], alpha: Double) {
        self.arms = arms
        self.comparisons = comparisons
        self.sampleRatioChecks = sampleRatioChecks
        self.alpha = alpha
    }
}

/// One arm's outcomes: the subscriptions attributed to it (by the product and offer of their first start in the range)
/// and everything Apple sent about them since.
public struct ArmResult: Sendable, Equatable {
    /// The arm.
    public var arm: ExperimentArm
    /// Subscriptions started (`started`).
    public var started: Int
    /// Intro starts (`introStarts`), free trials among them (`freeTrialStarts`).
    public var introStarts: Int
    /// Free-trial starts.
    public var freeTrialStarts: Int
    /// Intro conversions (`introConversions`).
    public var introConversions: Int
    /// Renewals (`renewals`).
    public var renewals: Int
    /// Refunds (`refunds`).
    public var refunds: Int
    /// Paid periods: starts that are not free trials, plus renewals.
    public var paidPeriods: Int
    /// List price × (paid periods − refunds), in milliunits of the arm's currency; nil without a list price. Not
    /// known here: Apple's commission (15 % or 30 %), taxes (storefront prices include VAT in most countries), the
    /// storefronts' own prices and currencies, and intro prices (each paid period counts at the list price).
    public var revenueAtListPrice: Int64?
    /// Cumulative `started` at the end of each day of the range (the looks of the sequential test).
    public var dailyStarted: [Int]

    /// A result.
    public init(arm: ExperimentArm, started: Int, introStarts: Int, freeTrialStarts: Int, introConversions: Int,
                renewals: Int, refunds: Int, paidPeriods: Int, revenueAtListPrice: Int64?, dailyStarted: [Int]) {
        self.arm = arm
        self.started = started
        self.introStarts = introStarts
        self.freeTrialStarts = freeTrialStarts
        self.introConversions = introConversions
        self.renewals = renewals
        self.refunds = refunds
        self.paidPeriods = paidPeriods
        self.revenueAtListPrice = revenueAtListPrice
        self.dailyStarted = dailyStarted
    }
}

/// Two arms' started subscriptions compared per unit of share by the always-valid test.
public struct ArmComparison: Sendable, Equatable {
    /// The first arm's index.
    public var first: Int
    /// The second arm's index.
    public var second: Int
    /// The test's result: the rate ratio is first's starts per share over second's; the p-value is corrected for
    /// the number of pairs (Bonferroni) and the interval is at alpha / pairs.
    public var result: SequentialRatioResult

    /// A comparison.
    public init(first: Int, second: Int, result: SequentialRatioResult) {
        self.first = first
        self.second = second
        self.result = result
    }

    /// "not decided yet" until the test decides, then which arm starts more subscriptions per share.
    public var verdict: String {
        guard result.decided else { return "not decided yet" }
        return result.rateRatio > 1 ? "arm \(first) starts more" : "arm \(second) starts more"
    }
}
