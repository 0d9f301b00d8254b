import FlagKit

/// Symi's flags as typed values, read from one evaluated set (the client's `FlagSnapshot`, or any other
/// ``EvaluatedFlags``) through FlagKit's generic lookups.
///
/// Each value falls back to its ``SymiSafeDefaults`` value when the document lacks the flag or has the wrong shape,
/// so no document, however old or broken, can lock a feature through a missing or malformed value. Build it once per
/// snapshot (the client swaps whole snapshots; `FlagClient.updates()` hands each new one over) and read it as often
/// as needed: reading a member is a field access.
public struct SymiFlagValues: Sendable, Equatable {
    /// Whether the Symi Plus UI may appear at all. Turning it off hides monetization UI; it never locks anything.
    public let monetizationEnabled: Bool
    /// Whether features in ``premiumFeatures`` need Symi Plus: `true` only when a valid document says so and
    /// ``monetizationEnabled`` is on.
    public let premiumFeaturesLocked: Bool
    /// Whether the "Für kurze Zeit gratis" card is shown.
    public let showIntroFreeSubscriptionBanner: Bool
    /// Whether the price-change notice (``SubscriptionPaidCopy/priceChangeNotice``) is shown.
    public let subscriptionPriceIncreaseMessagingEnabled: Bool
    /// How many days after a failed renewal a subscriber keeps Symi Plus while Apple retries the payment; clamped to
    /// ``SymiFlags/BillingRetryAccessDays/range`` (which `flagctl lint` checks against too), the safe default when
    /// missing or not an integer.
    public let billingRetryAccessDays: Int
    /// The one-line text of the intro banner.
    public let introOfferMessage: String
    /// The texts of the Symi Plus screen.
    public let subscriptionScreenCopy: SubscriptionScreenCopy
    /// The texts of the paid state (price button templates, the price-change notice); from ``SymiSafeDefaults`` in the
    /// install's language when the document predates the flag.
    public let subscriptionPaidCopy: SubscriptionPaidCopy
    /// StoreKit product ids to offer, in display order.
    public let subscriptionProductIds: [String]
    /// The experiment arm's product (or `product/offer`) the paywall shows instead of ``subscriptionProductIds``;
    /// `""` when there is no experiment, the flag is missing or not a string (the paywall then shows the defaults).
    public let paywallProduct: String
    /// Feature ids that need Symi Plus once ``premiumFeaturesLocked`` is true.
    public let premiumFeatures: [String]
    /// Privacy policy and terms of use (https).
    public let legalLinks: LegalLinks

    /// The typed values of `flags`.
    public init(_ flags: some EvaluatedFlags) {
        typealias Key = SymiFlags.Key
        let monetization = flags.bool(Key.monetizationEnabled, default: SymiSafeDefaults.monetizationEnabled)
        monetizationEnabled = monetization
        // monetizationEnabled is the master switch ("never locks anything" when off). A flag whose `requires` is
        // unmet yields its default, which for a paid launch may be `true`; the typed values therefore also
        // AND the switch in, so turning monetization off can only hide UI and unlock, never the opposite.
        // The generic lookups (`bool("premiumFeaturesLocked", ...)`) return the document's raw evaluation.
        premiumFeaturesLocked = monetization
            && flags.bool(Key.premiumFeaturesLocked, default: SymiSafeDefaults.premiumFeaturesLocked)
        showIntroFreeSubscriptionBanner = monetization
            && flags.bool(Key.showIntroFreeSubscriptionBanner, default: SymiSafeDefaults.showIntroFreeSubscriptionBanner)
        subscriptionPriceIncreaseMessagingEnabled = monetization
            && flags.bool(Key.subscriptionPriceIncreaseMessagingEnabled,
                          default: SymiSafeDefaults.subscriptionPriceIncreaseMessagingEnabled)
        // As JSON rather than `integer(...)`: a value beyond `Int` is clamped like any other too large a value.
        billingRetryAccessDays = flags.json(Key.billingRetryAccessDays, default: .null).integerValue
            .map(SymiFlags.BillingRetryAccessDays.clamped) ?? SymiSafeDefaults.billingRetryAccessDays
        introOfferMessage = flags.string(Key.introOfferMessage, default: SymiSafeDefaults.introOfferMessage)
        subscriptionScreenCopy = SubscriptionScreenCopy(json: flags.json(Key.subscriptionScreenCopy, default: .null))
            ?? SymiSafeDefaults.subscriptionScreenCopy
        subscriptionPaidCopy = SubscriptionPaidCopy(json: flags.json(Key.subscriptionPaidCopy, default: .null))
            ?? SymiSafeDefaults.subscriptionPaidCopy(for: flags.context)
        subscriptionProductIds = SubscriptionScreenCopy.strings(flags.json(Key.subscriptionProductIds, default: .null))
            ?? SymiSafeDefaults.subscriptionProductIds
        paywallProduct = flags.string(Key.paywallProduct, default: SymiSafeDefaults.paywallProduct)
        premiumFeatures = SubscriptionScreenCopy.strings(flags.json(Key.premiumFeatures, default: .null))
            ?? SymiSafeDefaults.premiumFeatures
        legalLinks = LegalLinks(json: flags.json(Key.legalLinks, default: .null)) ?? SymiSafeDefaults.legalLinks
    }

    /// The premium gate: `true` for everyone while ``premiumFeaturesLocked`` is `false`; once it is `true`, for
    /// entitled users, and for everyone when `feature` is not listed in ``premiumFeatures``.
    public func isAvailable(_ feature: String, entitled: Bool) -> Bool {
        !premiumFeaturesLocked || entitled || !premiumFeatures.contains(feature)
    }
}
