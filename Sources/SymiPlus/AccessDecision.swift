import Foundation
import SymiCatalog

/// Everything the access decision needs, as one value: the verified facts from the store, the courtesy window the flags
/// set, the time, and what was decided earlier in this run. Platform neutral, so the paid-day rehearsal can build
/// one for each synthetic install without a ``PurchaseManager``.
public struct AccessInput: Sendable, Equatable {
    /// What StoreKit lists as current entitlements (`Transaction.currentEntitlements`, verified only), plus verified
    /// purchases and updates since. StoreKit lists a subscription in its billing grace period although the
    /// transaction's `expirationDate` has passed: a listed, unrevoked entitlement therefore counts whatever its date.
    public var entitlements: [StoreEntitlement]
    /// The verified statuses of the Symi Plus group (`Product.SubscriptionInfo.status`); empty when none are known.
    public var statuses: [SubscriptionStatus]
    /// Whether the store read this decision follows failed (entitlements or statuses): then nothing verified earlier
    /// in this run is taken away.
    public var storeFailed: Bool
    /// Flag `billingRetryAccessDays`: how many days after the paid period ended a subscriber in Apple's billing retry
    /// keeps access (0: none beyond Apple's grace period).
    public var billingRetryAccessDays: Int
    /// The time of the decision.
    public var now: Date
    /// The decision made before this one in this run (`nil` at launch).
    public var earlier: AccessDecision?
    /// The products that grant Symi Plus (the catalogue's).
    public var productIds: Set<String>

    /// An input from its parts.
    public init(entitlements: [StoreEntitlement] = [], statuses: [SubscriptionStatus] = [], storeFailed: Bool = false,
                billingRetryAccessDays: Int, now: Date, earlier: AccessDecision? = nil,
                productIds: Set<String> = SymiCatalog.productIds) {
        self.entitlements = entitlements
        self.statuses = statuses
        self.storeFailed = storeFailed
        self.billingRetryAccessDays = billingRetryAccessDays
        self.now = now
        self.earlier = earlier
        self.productIds = productIds
    }
}

/// Whether the user has Symi Plus, why, until when, and what the screen should say about the subscription.
public struct AccessDecision: Sendable, Equatable {
    /// Why access is granted.
    public enum Basis: String, Sendable, Hashable, CaseIterable {
        /// No access.
        case none
        /// A paid-up subscription, or a verified transaction the store lists.
        case subscribed
        /// Apple's billing grace period: full access until it ends.
        case gracePeriod
        /// Billing retry, inside the courtesy window of ``AccessInput/billingRetryAccessDays``.
        case billingRetryCourtesy
    }

    /// A failed renewal: the calm notice to check the payment method.
    public struct BillingIssue: Sendable, Equatable {
        /// Whether Apple's billing grace period is running.
        public var inGracePeriod: Bool
        /// Until when access lasts (grace period end or courtesy window end); `nil` once access ended.
        public var accessUntil: Date?

        /// An issue from its parts.
        public init(inGracePeriod: Bool, accessUntil: Date?) {
            self.inGracePeriod = inGracePeriod
            self.accessUntil = accessUntil
        }
    }

    /// Whether Symi Plus features are open to this user (what `SymiFlagValues.isAvailable(_:entitled:)` gets).
    public var isEntitled: Bool
    /// Why.
    public var basis: Basis
    /// The product that grants access.
    public var productId: String?
    /// The transaction that grants access (what a refund request names).
    public var transactionId: UInt64?
    /// The next moment this decision may change by itself (a period, grace period or courtesy window ending): the
    /// manager asks the store again then.
    public var reviewAt: Date?
    /// A failed renewal being retried, if any.
    public var billingIssue: BillingIssue?
    /// Whether a price increase awaits this subscriber's consent (the only case the price-change notice is shown).
    public var priceIncreasePending: Bool
    /// The end of a cancelled subscription that is still active ("endet am ..."); only while it lies ahead.
    public var endsAt: Date?
    /// The product the subscription switches to at its next renewal (monthly to yearly), and when.
    public var switchesTo: String?
    /// When the current period ends and renews (or switches, or ends); only while it lies ahead.
    public var periodEnd: Date?
    /// Whether this is an earlier decision kept because the store failed (the store's own answer would have said less).
    public var keptAfterStoreFailure: Bool

    /// A decision from its parts.
    public init(isEntitled: Bool, basis: Basis, productId: String? = nil, transactionId: UInt64? = nil, reviewAt: Date? = nil,
                billingIssue: BillingIssue? = nil, priceIncreasePending: Bool = false, endsAt: Date? = nil,
                switchesTo: String? = nil, periodEnd: Date? = nil, keptAfterStoreFailure: Bool = false) {
        self.isEntitled = isEntitled
        self.basis = basis
        self.productId = productId
        self.transactionId = transactionId
        self.reviewAt = reviewAt
        self.billingIssue = billingIssue
        self.priceIncreasePending = priceIncreasePending
        self.endsAt = endsAt
        self.switchesTo = switchesTo
        self.periodEnd = periodEnd
        self.keptAfterStoreFailure = keptAfterStoreFailure
    }

    /// No access, nothing to say.
    public static let notEntitled = AccessDecision(isEntitled: false, basis: .none)
}
