import Foundation

/// The state of one Symi Plus subscription as the App Store reports it (`Product.SubscriptionInfo.Status`), reduced to
/// what the access decision and the screen need, as a value the platform-neutral code and the Linux tests can hold.
///
/// Only a status whose transaction and renewal info StoreKit both verified ever becomes one: an unverified status
/// grants nothing, exactly like an unverified transaction (the adapter drops it).
public struct SubscriptionStatus: Sendable, Equatable {
    /// StoreKit's `Product.SubscriptionInfo.RenewalState`.
    public enum RenewalState: String, Sendable, Hashable, CaseIterable {
        /// Subscribed and paid up.
        case subscribed
        /// Ended (cancelled, price increase not accepted, billing retry given up, product withdrawn).
        case expired
        /// A renewal failed; Apple keeps retrying (up to 60 days). No service from Apple's side, but see the courtesy
        /// window (``AccessInput/billingRetryAccessDays``).
        case inBillingRetryPeriod
        /// A renewal failed and App Store Connect's Billing Grace Period is on: full service until the grace period ends.
        case inGracePeriod
        /// Refunded or revoked (Family Sharing ended).
        case revoked
    }

    /// The renewal state.
    public var state: RenewalState
    /// The latest verified transaction of the subscription (`status.transaction`).
    public var transaction: StoreEntitlement
    /// The verified renewal info (`status.renewalInfo`).
    public var renewal: SubscriptionRenewalInfo

    /// A status from its parts.
    public init(state: RenewalState, transaction: StoreEntitlement, renewal: SubscriptionRenewalInfo) {
        self.state = state
        self.transaction = transaction
        self.renewal = renewal
    }
}

/// What StoreKit says about the next renewal (`Product.SubscriptionInfo.RenewalInfo`).
public struct SubscriptionRenewalInfo: Sendable, Equatable {
    /// `PriceIncreaseStatus`: whether a price increase applies to the next renewal.
    public enum PriceIncreaseStatus: String, Sendable, Hashable, CaseIterable {
        /// No increase planned for this subscriber.
        case noIncreasePending
        /// An increase that needs consent, not answered yet: the only case the app mentions it.
        case pending
        /// Consented (or an increase that needs no consent and was announced by Apple).
        case agreed
    }

    /// `ExpirationReason`: why the subscription ended.
    public enum ExpirationReason: String, Sendable, Hashable, CaseIterable {
        /// The subscriber turned off auto-renew.
        case autoRenewDisabled
        /// Payment failed.
        case billingError
        /// A price increase that needed consent was not accepted.
        case didNotConsentToPriceIncrease
        /// The product was not available at renewal.
        case productUnavailable
        /// Any other reason, or one this version does not know.
        case unknown
    }

    /// An offer applied to the next renewal (`RenewalInfo.offer`, iOS 18; `offerType`/`offerID` before).
    public struct Offer: Sendable, Equatable {
        /// How the offer came about.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// Introductory offer.
            case introductory
            /// Promotional offer.
            case promotional
            /// An offer code ("Code einlösen").
            case code
            /// A win-back offer.
            case winBack
            /// A kind this version does not know.
            case other
        }

        /// The kind.
        public var kind: Kind
        /// The offer's id (the offer code's reference name; `nil` for introductory offers).
        public var id: String?

        /// An offer from its parts.
        public init(kind: Kind, id: String? = nil) {
            self.kind = kind
            self.id = id
        }
    }

    /// The product the subscription renews as today (`currentProductID`).
    public var currentProductId: String
    /// Whether it renews at the end of the period (`willAutoRenew`): `false` after a cancellation.
    public var willAutoRenew: Bool
    /// The product of the next period (`autoRenewPreference`); another product after a switch (monthly to yearly),
    /// `nil` when it will not renew.
    public var autoRenewProductId: String?
    /// Why it expired (`expirationReason`); `nil` while it has not.
    public var expirationReason: ExpirationReason?
    /// Whether a price increase applies (`priceIncreaseStatus`).
    public var priceIncreaseStatus: PriceIncreaseStatus
    /// When the billing grace period ends (`gracePeriodExpirationDate`); `nil` outside one.
    public var gracePeriodExpirationDate: Date?
    /// Whether Apple is retrying a failed renewal (`isInBillingRetry`).
    public var isInBillingRetry: Bool
    /// The offer of the next renewal, if any.
    public var offer: Offer?

    /// Renewal info from its parts; the defaults describe a subscription that renews as it is.
    public init(currentProductId: String, willAutoRenew: Bool = true, autoRenewProductId: String? = nil,
                expirationReason: ExpirationReason? = nil, priceIncreaseStatus: PriceIncreaseStatus = .noIncreasePending,
                gracePeriodExpirationDate: Date? = nil, isInBillingRetry: Bool = false, offer: Offer? = nil) {
        self.currentProductId = currentProductId
        self.willAutoRenew = willAutoRenew
        self.autoRenewProductId = autoRenewProductId ?? (willAutoRenew ? currentProductId : nil)
        self.expirationReason = expirationReason
        self.priceIncreaseStatus = priceIncreaseStatus
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.isInBillingRetry = isInBillingRetry
        self.offer = offer
    }
}
