import FlagKit
import Foundation

/// One immutable set of values: a document (or the safe defaults) evaluated for one install's context.
///
/// Every flag is evaluated once when the snapshot is made, so reading a value is a dictionary lookup; the client
/// swaps whole snapshots, so a reader never sees half of one document and half of another. A class so that
/// handing one out costs a single retain.
public final class FlagSnapshot: Sendable {
    /// Where these values came from.
    public let source: ValueSource
    /// The context the document was evaluated for.
    public let context: EvaluationContext
    /// The envelope (version metadata and document) when the values come from the server or the cache.
    public let envelope: FlagEnvelope?
    /// The evaluated document: the envelope's, or ``SymiSafeDefaults/document``.
    public let document: FlagDocument?
    /// Every flag of the document, evaluated for ``context``.
    public let results: [String: EvaluationResult]

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
    /// `SymiFlags.BillingRetryAccessDays.range` (FlagKit's, which `flagctl lint` checks against too), the safe default
    /// when missing or not an integer.
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
    /// Feature ids that need Symi Plus once ``premiumFeaturesLocked`` is true.
    public let premiumFeatures: [String]
    /// Privacy policy and terms of use (https).
    public let legalLinks: LegalLinks

    /// Evaluates `envelope`'s document (or the safe defaults when `nil`) for `context`.
    /// `package`: the paid-day rehearsal (Benchmarks/PaidDayRehearsal) evaluates exactly what the app would.
    package init(envelope: FlagEnvelope?, source: ValueSource, context: EvaluationContext) {
        self.source = source
        self.context = context
        self.envelope = envelope
        let document = envelope?.document ?? SymiSafeDefaults.document
        self.document = document
        let results = document?.evaluateAll(context: context, version: envelope?.version) ?? [:]
        self.results = results
        // Each typed value falls back to its safe value when the document lacks the flag or has the wrong shape.
        let monetization = results["monetizationEnabled"]?.value.boolValue ?? SymiSafeDefaults.monetizationEnabled
        monetizationEnabled = monetization
        // monetizationEnabled is the master switch ("never locks anything" when off). A flag whose `requires` is
        // unmet yields its default, which for a paid launch may be `true`; the typed values therefore also
        // AND the switch in, so turning monetization off can only hide UI and unlock, never the opposite.
        // The generic lookups (`bool("premiumFeaturesLocked", ...)`) return the document's raw evaluation.
        premiumFeaturesLocked = monetization
            && (results["premiumFeaturesLocked"]?.value.boolValue ?? SymiSafeDefaults.premiumFeaturesLocked)
        showIntroFreeSubscriptionBanner = monetization && (results["showIntroFreeSubscriptionBanner"]?.value.boolValue
            ?? SymiSafeDefaults.showIntroFreeSubscriptionBanner)
        subscriptionPriceIncreaseMessagingEnabled = monetization
            && (results["subscriptionPriceIncreaseMessagingEnabled"]?.value.boolValue
                ?? SymiSafeDefaults.subscriptionPriceIncreaseMessagingEnabled)
        billingRetryAccessDays = results[SymiFlags.BillingRetryAccessDays.key]?.value.integerValue
            .map(SymiFlags.BillingRetryAccessDays.clamped) ?? SymiSafeDefaults.billingRetryAccessDays
        introOfferMessage = results["introOfferMessage"]?.value.stringValue ?? SymiSafeDefaults.introOfferMessage
        subscriptionScreenCopy = results["subscriptionScreenCopy"].flatMap { SubscriptionScreenCopy(json: $0.value) }
            ?? SymiSafeDefaults.subscriptionScreenCopy
        subscriptionPaidCopy = results["subscriptionPaidCopy"].flatMap { SubscriptionPaidCopy(json: $0.value) }
            ?? SymiSafeDefaults.subscriptionPaidCopy(for: context)
        subscriptionProductIds = results["subscriptionProductIds"].flatMap { SubscriptionScreenCopy.strings($0.value) }
            ?? SymiSafeDefaults.subscriptionProductIds
        premiumFeatures = results["premiumFeatures"].flatMap { SubscriptionScreenCopy.strings($0.value) }
            ?? SymiSafeDefaults.premiumFeatures
        legalLinks = results["legalLinks"].flatMap { LegalLinks(json: $0.value) } ?? SymiSafeDefaults.legalLinks
    }

    /// The same document evaluated for another context (another install id, a changed locale), same source.
    public func evaluated(for context: EvaluationContext) -> FlagSnapshot {
        FlagSnapshot(envelope: envelope, source: source, context: context)
    }

    /// `document` evaluated for `context` as if version `version` had just been fetched, or the safe defaults when
    /// `document` is `nil`: for the tests of other modules in this package (the app gets its snapshots from a
    /// ``FlagClient``).
    package convenience init(document: FlagDocument?, version: Int = 1, context: EvaluationContext) {
        guard let document else {
            self.init(envelope: nil, source: .safeDefaults, context: context)
            return
        }
        let envelope = FlagEnvelope(environment: "test", version: version, contentHash: document.contentHash, document: document)
        self.init(envelope: envelope, source: .server(version: version, fetchedAt: Date()), context: context)
    }

    /// These values with another source (a `304` confirmed them): same document, same evaluation.
    func withSource(_ source: ValueSource) -> FlagSnapshot {
        FlagSnapshot(envelope: envelope, source: source, context: context)
    }

    /// The premium gate: `true` for everyone while ``premiumFeaturesLocked`` is `false`; once it is `true`, for
    /// entitled users, and for everyone when `feature` is not listed in ``premiumFeatures``.
    public func isAvailable(_ feature: String, entitled: Bool) -> Bool {
        !premiumFeaturesLocked || entitled || !premiumFeatures.contains(feature)
    }

    /// The evaluation of any flag, as FlagKit gave it (`FLAG_NOT_FOUND` for an unknown key).
    public func result(_ key: String) -> EvaluationResult {
        results[key] ?? .failure(key: key, code: .flagNotFound, message: "flag \"\(key)\" is not in the document",
                                 version: envelope?.version)
    }
}
