import FlagKit
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
    /// The group's statuses (`Product.SubscriptionInfo.status`), as verified values.
    var statuses: [SubscriptionStatus] = []
    /// When set, `subscriptionStatuses()` fails with it.
    var statusesError: StoreError?
    /// What `Transaction.unfinished` holds; `finishUnfinishedTransactions()` finishes the verified ones.
    var unfinished: [StoreTransactionUpdate] = []
    /// What `installOrigin()` answers.
    var origin: InstallOrigin = .unknown("not scripted")

    /// The ids each `products(for:)` call asked for.
    private(set) var productRequests: [[String]] = []
    /// The product ids each `purchase(_:)` call bought.
    private(set) var purchases: [String] = []
    /// The signed offer each `purchase(_:offer:)` call carried (`nil`: the product's own terms).
    private(set) var purchaseOffers: [PromotionalOfferSignature?] = []
    /// How often `currentEntitlements()` was called.
    private(set) var entitlementChecks = 0
    /// The transactions finished by `finishUnfinishedTransactions()`.
    private(set) var finished: [UInt64] = []

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

    func purchase(_ productId: String, offer: PromotionalOfferSignature?) async throws(StoreError) -> PurchaseOutcome {
        purchases.append(productId)
        purchaseOffers.append(offer)
        let outcome = try purchaseResult.get()
        if purchaseAddsEntitlement, case .verified(let entitlement) = outcome { entitlements.append(entitlement) }
        return outcome
    }

    /// As StoreKit: unrevoked and unexpired transactions, and those whose subscription is in its billing grace period
    /// (listed although the `expirationDate` has passed).
    func currentEntitlements() async throws(StoreError) -> [StoreEntitlement] {
        entitlementChecks += 1
        if let entitlementsError { throw entitlementsError }
        let now = clock.now()
        return entitlements.filter { entitlement in
            entitlement.isActive(at: now) || (entitlement.revocationDate == nil && statuses.contains { status in
                status.state == .inGracePeriod && status.transaction.originalTransactionId == entitlement.originalTransactionId
            })
        }
    }

    func subscriptionStatuses() async throws(StoreError) -> [SubscriptionStatus] {
        if let statusesError { throw statusesError }
        return statuses
    }

    func finishUnfinishedTransactions() async -> [StoreTransactionUpdate] {
        let all = unfinished
        finished += all.compactMap { update in
            guard case .verified(let entitlement) = update else { return nil }
            return entitlement.transactionId
        }
        unfinished.removeAll { if case .verified = $0 { true } else { false } }
        return all
    }

    func installOrigin() async -> InstallOrigin { origin }

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
    func setStatuses(_ statuses: [SubscriptionStatus]) { self.statuses = statuses }
    func setStatusesError(_ error: StoreError?) { statusesError = error }
    func setUnfinished(_ updates: [StoreTransactionUpdate]) { unfinished = updates }
    func setOrigin(_ origin: InstallOrigin) { self.origin = origin }
    /// The store failing at everything it can fail at (or answering again, with the products it had before).
    func setFailing(_ failing: Bool) {
        entitlementsError = failing ? StoreError(.entitlementsUnavailable, cause: "offline") : nil
        statusesError = failing ? StoreError(.statusUnavailable, cause: "offline") : nil
        syncResult = failing ? .failure(StoreError(.syncFailed, cause: "offline")) : .success([])
        if failing, productsBeforeFailure == nil {
            productsBeforeFailure = productsResult
            productsResult = .failure(StoreError(.productsUnavailable, cause: "offline"))
        } else if !failing, let before = productsBeforeFailure {
            productsResult = before
            productsBeforeFailure = nil
        }
    }

    private var productsBeforeFailure: Result<[StoreProduct], StoreError>?

    /// Delivers a transaction update, as `Transaction.updates` would.
    nonisolated func send(_ update: StoreTransactionUpdate) { continuation.yield(update) }
}
