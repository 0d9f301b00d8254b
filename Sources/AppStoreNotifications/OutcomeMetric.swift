/// What an `OutcomeReport` counts, in the order the API, the Prometheus labels and `flagctl outcomes` list them. The
/// raw values are the API's JSON keys, the label values and flagctl's columns. docs/appstore.md, "Outcomes: what each
/// count means", says which notification lands where.
public enum OutcomeMetric: String, CaseIterable, Sendable {
    /// `SUBSCRIBED` `INITIAL_BUY` and `SUBSCRIBED` `RESUBSCRIBE`.
    case started
    /// `SUBSCRIBED` `INITIAL_BUY`.
    case initialBuys
    /// `SUBSCRIBED` `RESUBSCRIBE`.
    case resubscribes
    /// A start (`started`) with `offerType` 1, an introductory offer.
    case introStarts
    /// An intro start whose `offerDiscountType` is `FREE_TRIAL`.
    case freeTrialStarts
    /// The first `DID_RENEW` without `offerType` 1 of a subscription whose last start was an intro start.
    case introConversions
    /// The same, where that intro was a free trial.
    case freeTrialConversions
    /// `DID_RENEW`, any subtype.
    case renewals
    /// `DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_DISABLED`.
    case autoRenewOff
    /// `DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_ENABLED`.
    case autoRenewOn
    /// `DID_FAIL_TO_RENEW`, any subtype.
    case billingProblems
    /// `DID_FAIL_TO_RENEW` `GRACE_PERIOD`: access goes on while Apple retries.
    case billingProblemsWithGrace
    /// `DID_FAIL_TO_RENEW` without `GRACE_PERIOD`.
    case billingProblemsWithoutGrace
    /// `DID_RENEW` `BILLING_RECOVERY`.
    case recovered
    /// `EXPIRED` (any subtype) and `GRACE_PERIOD_EXPIRED`.
    case expired
    /// `EXPIRED` `VOLUNTARY`.
    case expiredVoluntary
    /// `EXPIRED` `BILLING_RETRY`.
    case expiredBillingRetry
    /// `EXPIRED` `PRICE_INCREASE`.
    case expiredPriceIncrease
    /// `EXPIRED` `PRODUCT_NOT_FOR_SALE`.
    case expiredProductNotForSale
    /// `GRACE_PERIOD_EXPIRED`.
    case gracePeriodExpired
    /// `REFUND`.
    case refunds
    /// `REFUND_DECLINED`.
    case refundsDeclined
    /// `REFUND_REVERSED`.
    case refundReversals
    /// `REVOKE` (Family Sharing: the purchaser's refund or leaving the family).
    case revocations
    /// `PRICE_INCREASE` `ACCEPTED`.
    case priceIncreaseAccepted
    /// `PRICE_INCREASE` `PENDING`.
    case priceIncreasePending
    /// `OFFER_REDEEMED`, any subtype.
    case offerRedemptions
    /// `TEST` (App Store Connect's test notification).
    case tests
    /// A gauge, not a count: the subscriptions with access at the bucket's end (`OutcomeReport`).
    case active

    /// The position in `allCases`, where `OutcomeCounts` keeps this metric's count.
    var index: Int { Self.indexes[self] ?? 0 }

    private static let indexes = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })

    /// The counts `record` adds on its own, by its type and subtype (and, for starts, its offer): every metric but
    /// the conversions, which depend on the subscription's earlier notifications, and `active`.
    public static func counted(for record: NotificationRecord) -> [OutcomeMetric] {
        switch (record.notificationType, record.subtype) {
        case ("SUBSCRIBED", "INITIAL_BUY"): return [.started, .initialBuys] + introStarts(record)
        case ("SUBSCRIBED", "RESUBSCRIBE"): return [.started, .resubscribes] + introStarts(record)
        case ("DID_RENEW", "BILLING_RECOVERY"): return [.renewals, .recovered]
        case ("DID_RENEW", _): return [.renewals]
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"): return [.autoRenewOff]
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): return [.autoRenewOn]
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): return [.billingProblems, .billingProblemsWithGrace]
        case ("DID_FAIL_TO_RENEW", _): return [.billingProblems, .billingProblemsWithoutGrace]
        case ("EXPIRED", "VOLUNTARY"): return [.expired, .expiredVoluntary]
        case ("EXPIRED", "BILLING_RETRY"): return [.expired, .expiredBillingRetry]
        case ("EXPIRED", "PRICE_INCREASE"): return [.expired, .expiredPriceIncrease]
        case ("EXPIRED", "PRODUCT_NOT_FOR_SALE"): return [.expired, .expiredProductNotForSale]
        case ("EXPIRED", _): return [.expired]
        case ("GRACE_PERIOD_EXPIRED", _): return [.expired, .gracePeriodExpired]
        case ("REFUND", _): return [.refunds]
        case ("REFUND_DECLINED", _): return [.refundsDeclined]
        case ("REFUND_REVERSED", _): return [.refundReversals]
        case ("REVOKE", _): return [.revocations]
        case ("PRICE_INCREASE", "ACCEPTED"): return [.priceIncreaseAccepted]
        case ("PRICE_INCREASE", "PENDING"): return [.priceIncreasePending]
        case ("OFFER_REDEEMED", _): return [.offerRedemptions]
        case ("TEST", _): return [.tests]
        default: return []
        }
    }

    /// `introStarts` (and `freeTrialStarts`) for a start with an introductory offer.
    private static func introStarts(_ record: NotificationRecord) -> [OutcomeMetric] {
        guard record.offerType == 1 else { return [] }
        return record.offerDiscountType == "FREE_TRIAL" ? [.introStarts, .freeTrialStarts] : [.introStarts]
    }

    /// Whether `record` is a start (`SUBSCRIBED` `INITIAL_BUY` or `RESUBSCRIBE`).
    static func isStart(_ record: NotificationRecord) -> Bool {
        record.notificationType == "SUBSCRIBED" && (record.subtype == "INITIAL_BUY" || record.subtype == "RESUBSCRIBE")
    }

    /// The notification types after which a subscription has no access, whatever its dates say.
    static let accessEndingTypes: Set<String> = ["EXPIRED", "GRACE_PERIOD_EXPIRED", "REFUND", "REVOKE"]
}
