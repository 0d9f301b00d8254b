import AppStoreNotifications
import Testing

@Suite struct OutcomeMetricTests {
    /// The names are the API's JSON keys, Prometheus label values and flagctl's columns: fixed, in this order.
    @Test func namesAndOrderAreThePlans() {
        #expect(OutcomeMetric.allCases.map(\.rawValue) == [
            "started", "initialBuys", "resubscribes", "introStarts", "freeTrialStarts", "introConversions", "freeTrialConversions",
            "renewals", "autoRenewOff", "autoRenewOn", "billingProblems", "billingProblemsWithGrace", "billingProblemsWithoutGrace",
            "recovered", "expired", "expiredVoluntary", "expiredBillingRetry", "expiredPriceIncrease", "expiredProductNotForSale",
            "gracePeriodExpired", "refunds", "refundsDeclined", "refundReversals", "revocations", "priceIncreaseAccepted",
            "priceIncreasePending", "offerRedemptions", "tests", "active",
        ])
    }

    /// A record counts by itself only what its type says: never a conversion or `active`, which need the history.
    @Test func aRecordAloneNeverCountsAConversionOrActive() {
        var renewal = NotificationRecord(notificationUUID: "u", notificationType: "DID_RENEW", signedDate: 1, receivedAt: 2,
                                         environment: "Production")
        renewal.expiresDate = .max
        #expect(OutcomeMetric.counted(for: renewal) == [.renewals])
        var unknown = renewal
        unknown.notificationType = "RENEWAL_EXTENDED"
        #expect(OutcomeMetric.counted(for: unknown).isEmpty)
        var subscribedWithoutSubtype = renewal
        subscribedWithoutSubtype.notificationType = "SUBSCRIBED"
        #expect(OutcomeMetric.counted(for: subscribedWithoutSubtype).isEmpty)
    }
}
