/// Symi's flag names and the facts about them that more than one module checks: the app's typed values
/// (``SymiFlagValues``, which reads and clamps them) and `flagctl lint` (which warns about values the app would not take
/// as written). Written down once here, in the schema module both link, so that the lint's warning and the app's
/// behaviour cannot drift apart; `flagctl` links neither the app's client nor StoreKit (docs/architecture.md).
public enum SymiFlags {
    /// The keys of Symi's flags in the documents under `flags/`.
    public enum Key {
        /// Whether the Symi Plus UI may appear at all; the master switch, which never locks anything.
        public static let monetizationEnabled = "monetizationEnabled"
        /// Whether the features in ``premiumFeatures`` need Symi Plus.
        public static let premiumFeaturesLocked = "premiumFeaturesLocked"
        /// Whether the "Für kurze Zeit gratis" card is shown.
        public static let showIntroFreeSubscriptionBanner = "showIntroFreeSubscriptionBanner"
        /// Whether the notice of a planned price change is shown.
        public static let subscriptionPriceIncreaseMessagingEnabled = "subscriptionPriceIncreaseMessagingEnabled"
        /// Days of access after a failed renewal while Apple retries (``BillingRetryAccessDays``).
        public static let billingRetryAccessDays = "billingRetryAccessDays"
        /// The one-line text of the intro banner.
        public static let introOfferMessage = "introOfferMessage"
        /// The texts of the Symi Plus screen (``SubscriptionScreenCopy``).
        public static let subscriptionScreenCopy = "subscriptionScreenCopy"
        /// The texts of the paid state (``SubscriptionPaidCopy``).
        public static let subscriptionPaidCopy = "subscriptionPaidCopy"
        /// The StoreKit product ids to offer, in display order.
        public static let subscriptionProductIds = "subscriptionProductIds"
        /// The feature ids that need Symi Plus once ``premiumFeaturesLocked`` is true.
        public static let premiumFeatures = "premiumFeatures"
        /// Privacy policy and terms of use (``LegalLinks``).
        public static let legalLinks = "legalLinks"
    }

    /// `billingRetryAccessDays`: how many days after the paid period a subscriber whose renewal payment failed keeps
    /// Symi Plus while Apple retries (docs/monetization.md). Its safe default is ``SymiSafeDefaults/billingRetryAccessDays``.
    public enum BillingRetryAccessDays {
        /// The flag's key.
        public static let key = Key.billingRetryAccessDays
        /// The days the app accepts: 0 turns the courtesy window off; Apple retries a failed renewal for up to 60 days,
        /// so a longer window could only ever apply to subscriptions Apple has given up on.
        public static let range: ClosedRange<Int> = 0...60

        /// What the app uses for a flag value of `days`: `days` clamped to ``range``.
        public static func clamped(_ days: Int64) -> Int {
            Int(min(max(days, Int64(range.lowerBound)), Int64(range.upperBound)))
        }
    }
}
