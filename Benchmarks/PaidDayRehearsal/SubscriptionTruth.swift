/// The known truth a ``NotificationWeek`` is drawn from: per arm, the product its paywall shows, its share of the
/// installs, its list price and the chance that an install starts a subscription; for every subscriber, the rates of
/// what follows a start (``SubscriberBehaviour``). The rehearsal compares what the server reports with this truth.
public struct ArmTruth: Sendable, Equatable {
    /// The App Store product id the arm's paywall offers (distinct per simulated experiment, so one server holds many).
    public var product: String
    /// The arm's share of the installs (any positive scale: only ratios are used).
    public var share: Double
    /// The list price of one paid period, milliunits of `currency` (App Store Connect's price).
    public var listPrice: Int64
    /// The list price's currency.
    public var currency: String
    /// The chance that an install shown this arm's paywall starts a subscription (free trial or paid).
    public var conversion: Double

    /// An arm.
    public init(product: String, share: Double, listPrice: Int64 = 4990, currency: String = "EUR", conversion: Double) {
        self.product = product
        self.share = share
        self.listPrice = listPrice
        self.currency = currency
        self.conversion = conversion
    }
}

/// What subscribers do after a start, at known rates (the same in every arm: a price changes who starts, and the
/// rehearsal measures exactly that).
public struct SubscriberBehaviour: Sendable, Equatable {
    /// Starts that begin with the free trial (`offerType` 1, `FREE_TRIAL`); the rest pay at once.
    public var freeTrialShare = 0.5
    /// The free trial's length.
    public var trialDays = 3
    /// Free trials that convert (a paid renewal at the trial's end); the others turn auto-renew off during the trial
    /// and expire (`EXPIRED` `VOLUNTARY`) at its end.
    public var introConversion = 0.6
    /// Paying subscribers who turn auto-renew off during their first period.
    public var autoRenewOff = 0.1
    /// Paid periods (a paid start, a trial's conversion) refunded (`REFUND`), within `refundWithinHours` of the payment.
    public var refundRate = 0.02
    /// The latest a refund comes after its payment.
    public var refundWithinHours = 72
    /// One paid period (a monthly subscription: no paid start renews inside a week or two).
    public var periodDays = 30

    /// The defaults above: half free trials, 60 % of them converting, 10 % auto-renew off, 2 % refunds.
    public init() {}
}

/// The shape of installs over the users' day (UTC hours; the mean is 1): quiet nights, busy evenings. The same
/// shape as the guard simulations of `OutcomeAnalysisTests`, so the previous week's same hours cancel it.
public enum DayProfile {
    /// One factor per hour of the day.
    public static let hourly: [Double] = [0.4, 0.3, 0.25, 0.25, 0.3, 0.4, 0.6, 0.8, 1.0, 1.1, 1.2, 1.2,
                                          1.2, 1.2, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.6, 1.3, 0.9, 0.6]
    /// `hourly` scaled to a mean of exactly 1.
    public static let normalized: [Double] = {
        let mean = hourly.reduce(0, +) / Double(hourly.count)
        return hourly.map { $0 / mean }
    }()
}
