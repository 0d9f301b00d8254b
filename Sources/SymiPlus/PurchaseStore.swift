/// What the app needs from the App Store, behind a protocol so that the purchase logic runs and is tested without
/// StoreKit (RevenueCat's purchases-ios keeps StoreKit behind protocols the same way). The app uses
/// ``StoreKitPurchaseStore``; the tests use a scripted double.
///
/// Every method reports failure as a ``StoreError``; none of them may crash or block forever on a store problem.
public protocol PurchaseStore: Sendable {
    /// The products with these ids, as the store knows them (`Product.products(for:)`), including whether this user
    /// is eligible for each introductory offer. Ids the store does not know are simply missing from the result.
    func products(for ids: [String]) async throws(StoreError) -> [StoreProduct]

    /// Buys the product with this id (`product.purchase()`); a verified transaction is finished before returning.
    func purchase(_ productId: String) async throws(StoreError) -> PurchaseOutcome

    /// The verified transactions that grant access now (`Transaction.currentEntitlements`), revoked and expired
    /// ones left out.
    func currentEntitlements() async throws(StoreError) -> [StoreEntitlement]

    /// Transactions that arrive outside a purchase call (`Transaction.updates`): each call gives a new stream.
    /// Observe it from launch, or renewals, Ask to Buy approvals and refunds are missed.
    func transactionUpdates() -> AsyncStream<StoreTransactionUpdate>

    /// Restore: asks the App Store to sync this Apple ID's transactions (`AppStore.sync()`, may show a sign-in).
    func sync() async throws(StoreError)
}
