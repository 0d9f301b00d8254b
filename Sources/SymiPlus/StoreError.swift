/// Why a store operation failed, keeping the cause: the one error type of the purchase layer, so the app can show a
/// friendly message (``SymiPlusMessages``) and still log what StoreKit said.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which operation failed, or how.
    public enum Kind: String, Sendable, Hashable {
        /// Products could not be loaded (no network, App Store unavailable, not available in this storefront).
        case productsUnavailable
        /// A product to purchase was not among the loaded products.
        case unknownProduct
        /// The purchase itself failed (payment declined, system error).
        case purchaseFailed
        /// The current entitlements could not be read.
        case entitlementsUnavailable
        /// The subscription statuses (`Product.SubscriptionInfo.status`) could not be read.
        case statusUnavailable
        /// `AppStore.sync()` failed.
        case syncFailed
        /// An experiment's promotional offer could not be signed by the server for this purchase (the paywall then
        /// shows the product at its own terms).
        case offerUnavailable
        /// The App Store refused the promotional offer for this account (`Product.PurchaseError.ineligibleForOffer`)
        /// or its signature (`invalidOfferSignature`, `missingOfferParameters`, ...): nothing was bought.
        case offerRefused
        /// The user cancelled a dialog the system showed (the App Store sign-in during a restore): no error to show.
        case cancelled
    }

    /// What failed.
    public var kind: Kind
    /// The underlying error's description (StoreKit's `StoreKitError`, `Product.PurchaseError`, a `URLError`), for
    /// logs; never shown to users.
    public var cause: String

    /// An error of `kind` with its cause.
    public init(_ kind: Kind, cause: String) {
        self.kind = kind
        self.cause = cause
    }

    /// An error of `kind` caused by `error` (its description is kept).
    public init(_ kind: Kind, causedBy error: any Error) {
        self.init(kind, cause: String(describing: error))
    }

    /// `productsUnavailable: <cause>`.
    public var description: String { "\(kind.rawValue): \(cause)" }
}
