import FlagClient
import Foundation
import SymiCatalog
import SymiSchema

/// Everything ``PurchaseManager`` knows, as one value: what the screen model reads and what observers receive.
///
/// Held in memory only. Entitlements are read from the store at every launch and never persisted: a stored
/// "purchased" flag could be copied between devices or outlive a refund, and a stored "not purchased" could lock
/// a paying user out while the store is unreachable.
public struct PurchaseState: Sendable, Equatable {
    /// How far loading the products got.
    public enum ProductsPhase: Sendable, Equatable {
        /// Not asked yet.
        case notLoaded
        /// The store is being asked.
        case loading
        /// The store answered (possibly with no products at all).
        case loaded
        /// The store could not be asked; the app stays fully usable.
        case unavailable(StoreError)
    }

    /// What the last user action (purchase or restore) is doing or did.
    public enum Activity: Sendable, Equatable {
        /// Nothing happened yet, or the last result was dismissed.
        case idle
        /// A purchase of this product is under way.
        case purchasing(productId: String)
        /// A restore is under way.
        case restoring
        /// The purchase waits for approval (Ask to Buy); it arrives later as a transaction update.
        case pending(productId: String)
        /// The user cancelled: nothing to show.
        case cancelled
        /// The purchase succeeded and was verified.
        case purchased(productId: String)
        /// The store returned a transaction that failed verification: ignored, grants nothing.
        case unverified(productId: String)
        /// The purchase or the restore failed.
        case failed(StoreError)
        /// The restore finished; whether it found an active Symi Plus subscription.
        case restored(foundPurchases: Bool)
    }

    /// The catalogue's products the flags offer (``SymiCatalog``), in the flags' order, then a running experiment's
    /// product (``paywallProduct``): what ``products`` is loaded for.
    public var offeredProductIds: [String]
    /// Flag `paywallProduct` as last applied: the experiment arm's `product` or `product/offer`, `""` for none.
    public var paywallProduct: String = ""
    /// What the screen shows for ``paywallProduct`` since the products were last loaded (``PaywallChoice``).
    public var paywallOutcome: PaywallChoice.Outcome = .noExperiment
    /// Whether the arm's promotional offer is applied (``PaywallOffer``): only then does the arm's product show the
    /// offer's terms and does a purchase of it carry the offer.
    public var paywallOffer: PaywallOffer = .none
    /// The id ``offeredProductIds`` got for the experiment beyond the default products; nil when none.
    public var paywallProductId: String?
    /// The default products' ids: ``offeredProductIds`` without the experiment's.
    public var defaultProductIds: [String] { offeredProductIds.filter { $0 != paywallProductId } }
    /// Ids the flags offered that the catalogue does not know: never requested, never shown, reported here.
    public var ignoredProductIds: [String]
    /// The products the screen shows: the loaded default products in the flags' order (ids the store does not know
    /// are missing), with an experiment's product in place of the default of its period (``PaywallChoice``).
    public var products: [StoreProduct]
    /// How far loading the products got.
    public var productsPhase: ProductsPhase
    /// The verified entitlements the store listed at the last check, with verified purchases and updates since.
    public var entitlements: [StoreEntitlement]
    /// Whether the store answered an entitlements check in this run (until then nobody is known to be subscribed).
    public var entitlementsChecked: Bool
    /// The verified statuses of the Symi Plus group as of the last check that answered (empty before).
    public var statuses: [SubscriptionStatus]
    /// Whether the store answered a statuses check in this run (until then nobody is known to be a lapsed subscriber).
    public var statusesChecked: Bool = false
    /// The access decision (``SymiPlusAccess``) on the facts above: what ``isPremiumEntitled`` reads.
    public var access: AccessDecision
    /// Flag `billingRetryAccessDays`, as last applied (the safe default until a snapshot is applied).
    public var billingRetryAccessDays: Int
    /// The App Store's record of this install, once read (`nil` before): the lead's `firstInstallDate` attribute.
    public var installOrigin: InstallOrigin?
    /// The last user action.
    public var activity: Activity

    /// A state from its parts; the defaults are the state at launch.
    public init(offeredProductIds: [String] = [], ignoredProductIds: [String] = [], products: [StoreProduct] = [],
                productsPhase: ProductsPhase = .notLoaded, entitlements: [StoreEntitlement] = [],
                entitlementsChecked: Bool = false, statuses: [SubscriptionStatus] = [], access: AccessDecision = .notEntitled,
                billingRetryAccessDays: Int = SymiSafeDefaults.billingRetryAccessDays, installOrigin: InstallOrigin? = nil,
                activity: Activity = .idle) {
        self.offeredProductIds = offeredProductIds
        self.ignoredProductIds = ignoredProductIds
        self.products = products
        self.productsPhase = productsPhase
        self.entitlements = entitlements
        self.entitlementsChecked = entitlementsChecked
        self.statuses = statuses
        self.access = access
        self.billingRetryAccessDays = billingRetryAccessDays
        self.installOrigin = installOrigin
        self.activity = activity
    }

    /// The product ids with an active entitlement (the brief's `purchasedProductIDs`).
    public var purchasedProductIDs: Set<String> { Set(entitlements.map(\.productId)) }

    /// Whether the user has Symi Plus: the access decision (``SymiPlusAccess``) on verified facts for catalogue
    /// products. What the app passes to `SymiFlagValues.isAvailable(_:entitled:)`.
    public var isPremiumEntitled: Bool { access.isEntitled }

    /// Decides access again on the facts held (``SymiPlusAccess/decide(_:)``); `storeFailed` when the facts were not
    /// freshly answered by the store (the read just made failed, or a local update was applied to the last read's
    /// statuses), so that nothing decided earlier is taken away.
    public mutating func decideAccess(now: Date, storeFailed: Bool) {
        access = SymiPlusAccess.decide(AccessInput(entitlements: entitlements, statuses: statuses, storeFailed: storeFailed,
                                                   billingRetryAccessDays: billingRetryAccessDays, now: now, earlier: access))
    }

    /// Whether the store is being asked for something the user waits for.
    public var isLoading: Bool {
        switch activity {
        case .purchasing, .restoring: return true
        default: return productsPhase == .loading
        }
    }

    /// The failure to tell the user about, if any: a failed action first, else products that could not be loaded.
    public var error: StoreError? {
        if case .failed(let error) = activity { return error }
        if case .unavailable(let error) = productsPhase { return error }
        return nil
    }
}
