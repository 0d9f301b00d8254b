import FlagKit

/// Typed accessors for Symi's flags and generic lookups, each reading the current snapshot (for several values
/// that must agree with each other, read them from one ``FlagClient/snapshot`` instead).
extension FlagClient {
    /// Whether the Symi Plus UI may appear at all. Turning it off hides monetization UI; it never locks anything.
    public var monetizationEnabled: Bool { snapshot.monetizationEnabled }
    /// Whether features in ``premiumFeatures`` need Symi Plus. `false` unless a valid document says `true`.
    public var premiumFeaturesLocked: Bool { snapshot.premiumFeaturesLocked }
    /// Whether the "Für kurze Zeit gratis" card is shown.
    public var showIntroFreeSubscriptionBanner: Bool { snapshot.showIntroFreeSubscriptionBanner }
    /// Whether the price-change notice (``SubscriptionPaidCopy/priceChangeNotice``) is shown.
    public var subscriptionPriceIncreaseMessagingEnabled: Bool { snapshot.subscriptionPriceIncreaseMessagingEnabled }
    /// Days of access after a failed renewal while Apple retries the payment (0...60).
    public var billingRetryAccessDays: Int { snapshot.billingRetryAccessDays }
    /// The one-line text of the intro banner.
    public var introOfferMessage: String { snapshot.introOfferMessage }
    /// The texts of the Symi Plus screen.
    public var subscriptionScreenCopy: SubscriptionScreenCopy { snapshot.subscriptionScreenCopy }
    /// The texts of the paid state (price button templates, the price-change notice).
    public var subscriptionPaidCopy: SubscriptionPaidCopy { snapshot.subscriptionPaidCopy }
    /// StoreKit product ids to offer, in display order.
    public var subscriptionProductIds: [String] { snapshot.subscriptionProductIds }
    /// Feature ids that need Symi Plus once ``premiumFeaturesLocked`` is true.
    public var premiumFeatures: [String] { snapshot.premiumFeatures }
    /// Privacy policy and terms of use (https).
    public var legalLinks: LegalLinks { snapshot.legalLinks }

    /// The premium gate: `true` for everyone while ``premiumFeaturesLocked`` is `false`; once it is `true`, for
    /// entitled users, and for everyone when `feature` is not listed in ``premiumFeatures``.
    public func isAvailable(_ feature: String, entitled: Bool) -> Bool {
        snapshot.isAvailable(feature, entitled: entitled)
    }

    /// A boolean flag, or `defaultValue` when it is missing or not a boolean.
    public func bool(_ key: String, default defaultValue: Bool) -> Bool { snapshot.bool(key, default: defaultValue) }
    /// A string flag, or `defaultValue`.
    public func string(_ key: String, default defaultValue: String) -> String { snapshot.string(key, default: defaultValue) }
    /// An integer flag, or `defaultValue`.
    public func integer(_ key: String, default defaultValue: Int) -> Int { snapshot.integer(key, default: defaultValue) }
    /// A number flag, or `defaultValue`.
    public func number(_ key: String, default defaultValue: Double) -> Double { snapshot.number(key, default: defaultValue) }
    /// Any flag as JSON, or `defaultValue` when it is missing.
    public func json(_ key: String, default defaultValue: JSONValue) -> JSONValue { snapshot.json(key, default: defaultValue) }

    /// A boolean flag with its evaluation details.
    public func boolDetails(_ key: String, default defaultValue: Bool) -> FlagEvaluationDetails<Bool> {
        snapshot.boolDetails(key, default: defaultValue)
    }
    /// A string flag with its evaluation details.
    public func stringDetails(_ key: String, default defaultValue: String) -> FlagEvaluationDetails<String> {
        snapshot.stringDetails(key, default: defaultValue)
    }
    /// An integer flag with its evaluation details.
    public func integerDetails(_ key: String, default defaultValue: Int) -> FlagEvaluationDetails<Int> {
        snapshot.integerDetails(key, default: defaultValue)
    }
    /// A number flag with its evaluation details.
    public func numberDetails(_ key: String, default defaultValue: Double) -> FlagEvaluationDetails<Double> {
        snapshot.numberDetails(key, default: defaultValue)
    }
    /// Any flag as JSON with its evaluation details.
    public func jsonDetails(_ key: String, default defaultValue: JSONValue) -> FlagEvaluationDetails<JSONValue> {
        snapshot.jsonDetails(key, default: defaultValue)
    }
}
