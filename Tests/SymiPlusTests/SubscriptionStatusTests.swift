import Testing
@testable import SymiPlus

/// The renewal info's defaults.
@Suite struct SubscriptionStatusTests {
    @Test func theNextProductDefaultsToTheCurrentOneOnlyWhileItRenews() {
        #expect(SubscriptionRenewalInfo(currentProductId: "symi_plus_monthly").autoRenewProductId == "symi_plus_monthly")
        #expect(SubscriptionRenewalInfo(currentProductId: "symi_plus_monthly", willAutoRenew: false).autoRenewProductId == nil)
        #expect(SubscriptionRenewalInfo(currentProductId: "symi_plus_monthly", autoRenewProductId: "symi_plus_yearly")
            .autoRenewProductId == "symi_plus_yearly")
        let plain = SubscriptionRenewalInfo(currentProductId: "symi_plus_monthly")
        #expect(plain.priceIncreaseStatus == .noIncreasePending && plain.expirationReason == nil && !plain.isInBillingRetry)
        #expect(plain.gracePeriodExpirationDate == nil && plain.offer == nil)
    }
}
