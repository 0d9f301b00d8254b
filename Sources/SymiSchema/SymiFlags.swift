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
        /// A price or offer experiment's arm: the product id (or `productId/offerId`) the paywall shows instead of
        /// ``subscriptionProductIds``; `""` (the default) means no experiment (``PaywallProduct``).
        public static let paywallProduct = "paywallProduct"
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

    /// `paywallProduct`: the arm of a price or offer experiment an install is in (docs/guards.md, "Running an
    /// experiment"). The flag's rules split installs by percentage; each value names the product (and optionally
    /// the offer) that install's paywall shows. The app shows it only when StoreKit loaded it, in the subscription
    /// group of the default products; anything else falls back to ``Key/subscriptionProductIds`` (`SymiPlus`'
    /// `PaywallChoice`), and `flagctl storekit check` reports a value the StoreKit configuration does not have.
    public enum PaywallProduct {
        /// The flag's key.
        public static let key = Key.paywallProduct

        /// The product id and offer id of `value` (`"product"` or `"product/offer"`), or nil for `""` (no
        /// experiment) and anything that is not one or two non-empty parts.
        public static func parse(_ value: String) -> (product: String, offer: String?)? {
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
            return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
        }
    }
}
