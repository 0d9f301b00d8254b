import Foundation
import SymiPlus

/// A ``PurchaseStore`` whose answers the test scripts: products, purchase outcomes, the store's entitlements (filtered
/// by the test clock as StoreKit filters by the real one), restore results, and transaction updates sent by hand.
actor ScriptedStore: PurchaseStore {
    /// What `products(for:)` answers; the requested ids filter a success as the App Store would.
    var productsResult: Result<[StoreProduct], StoreError> = .success([])
    /// What `purchase(_:)` answers for any product.
    var purchaseResult: Result<PurchaseOutcome, StoreError> = .success(.userCancelled)
    /// The store's entitlements (revoked and expired ones included: `currentEntitlements()` leaves them out).
    var entitlements: [StoreEntitlement] = []
    /// When set, `currentEntitlements()` fails with it.
    var entitlementsError: StoreError?
    /// What `sync()` does: fail with an error, or add these entitlements (a purchase made on another device).
    var syncResult: Result<[StoreEntitlement], StoreError> = .success([])
    /// A purchase that succeeds also adds its entitlement to ``entitlements`` (as StoreKit would).
    var purchaseAddsEntitlement = true

    /// The ids each `products(for:)` call asked for.
    private(set) var productRequests: [[String]] = []
    /// The product ids each `purchase(_:)` call bought.
    private(set) var purchases: [String] = []
    /// How often `currentEntitlements()` was called.
    private(set) var entitlementChecks = 0

    private let clock: any PurchaseClock
    nonisolated private let updates: AsyncStream<StoreTransactionUpdate>
    nonisolated private let continuation: AsyncStream<StoreTransactionUpdate>.Continuation

    init(clock: any PurchaseClock) {
        self.clock = clock
        (updates, continuation) = AsyncStream.makeStream(of: StoreTransactionUpdate.self)
    }

    func products(for ids: [String]) async throws(StoreError) -> [StoreProduct] {
        productRequests.append(ids)
        return try productsResult.get().filter { ids.contains($0.id) }
    }

    func purchase(_ productId: String) async throws(StoreError) -> PurchaseOutcome {
        purchases.append(productId)
        let outcome = try purchaseResult.get()
        if purchaseAddsEntitlement, case .verified(let entitlement) = outcome { entitlements.append(entitlement) }
        return outcome
    }

    func currentEntitlements() async throws(StoreError) -> [StoreEntitlement] {
        entitlementChecks += 1
        if let entitlementsError { throw entitlementsError }
        let now = clock.now()
        return entitlements.filter { $0.isActive(at: now) }
    }

    nonisolated func transactionUpdates() -> AsyncStream<StoreTransactionUpdate> { updates }

    func sync() async throws(StoreError) {
        entitlements += try syncResult.get()
    }

    // MARK: Scripting

    func setProducts(_ result: Result<[StoreProduct], StoreError>) { productsResult = result }
    func setPurchase(_ result: Result<PurchaseOutcome, StoreError>) { purchaseResult = result }
    func setEntitlements(_ entitlements: [StoreEntitlement]) { self.entitlements = entitlements }
    func setEntitlementsError(_ error: StoreError?) { entitlementsError = error }
    func setSync(_ result: Result<[StoreEntitlement], StoreError>) { syncResult = result }
    func setPurchaseAddsEntitlement(_ adds: Bool) { purchaseAddsEntitlement = adds }

    /// Delivers a transaction update, as `Transaction.updates` would.
    nonisolated func send(_ update: StoreTransactionUpdate) { continuation.yield(update) }
}
