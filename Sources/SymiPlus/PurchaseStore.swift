import FlagKit

/// What the app needs from the App Store, behind a protocol so that the purchase logic runs and is tested without
/// StoreKit (RevenueCat's purchases-ios keeps StoreKit behind protocols the same way). The app uses
/// ``StoreKitPurchaseStore``; the tests use a scripted double.
///
/// Every method reports failure as a ``StoreError``; none of them may crash or block forever on a store problem.
public protocol PurchaseStore: Sendable {
    /// The products with these ids, as the store knows them (`Product.products(for:)`), including whether this user
    /// is eligible for each introductory offer. Ids the store does not know are simply missing from the result.
    func products(for ids: [String]) async throws(StoreError) -> [StoreProduct]

    /// Buys the product with this id (`product.purchase(options:)`), with the promotional offer `offer` signs when
    /// given; a verified transaction is finished before returning. An offer the App Store refuses for this account or
    /// signature throws ``StoreError/Kind/offerRefused`` and buys nothing.
    func purchase(_ productId: String, offer: PromotionalOfferSignature?) async throws(StoreError) -> PurchaseOutcome

    /// The verified transactions StoreKit lists as current entitlements (`Transaction.currentEntitlements`), revoked
    /// ones left out. Not filtered by date: StoreKit lists a subscription in its billing grace period although its
    /// `expirationDate` has passed, and it must keep access (``SymiPlusAccess``).
    func currentEntitlements() async throws(StoreError) -> [StoreEntitlement]

    /// The verified statuses of the Symi Plus subscription group (`Product.SubscriptionInfo.status`): renewal state
    /// and renewal info. A status whose transaction or renewal info fails verification is left out (grants nothing).
    func subscriptionStatuses() async throws(StoreError) -> [SubscriptionStatus]

    /// Finishes the transactions left unfinished by an earlier run (`Transaction.unfinished`, at launch): verified
    /// ones are finished and returned so their entitlement counts; unverified ones are returned, not finished.
    func finishUnfinishedTransactions() async -> [StoreTransactionUpdate]

    /// The App Store's signed record of this install (`AppTransaction.shared`): ``InstallOrigin/unknown(_:)`` when it
    /// cannot be read or verified, never a guessed date.
    func installOrigin() async -> InstallOrigin

    /// Transactions that arrive outside a purchase call (`Transaction.updates`): each call gives a new stream.
    /// Observe it from launch, or renewals, Ask to Buy approvals and refunds are missed.
    func transactionUpdates() -> AsyncStream<StoreTransactionUpdate>

    /// Restore: asks the App Store to sync this Apple ID's transactions (`AppStore.sync()`, may show a sign-in).
    func sync() async throws(StoreError)
}

extension PurchaseStore {
    /// Buys the product with this id at its own terms.
    public func purchase(_ productId: String) async throws(StoreError) -> PurchaseOutcome {
        try await purchase(productId, offer: nil)
    }
}
