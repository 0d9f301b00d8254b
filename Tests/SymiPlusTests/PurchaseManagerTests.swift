import FlagClient
import Foundation
import SymiCatalog
import TestSupport
import Testing
@testable import SymiPlus

/// The purchase manager on a scripted store: loading, every purchase outcome, restore, and entitlements that change
/// while the app runs.
@MainActor
@Suite struct PurchaseManagerTests {
    let clock = ManualClock()
    let store: ScriptedStore

    init() {
        store = ScriptedStore(clock: clock)
    }

    /// A manager that has finished its launch check of the entitlements.
    func launchedManager(language: SymiPlusLanguage = .german) async throws -> PurchaseManager {
        let manager = PurchaseManager(store: store, language: language, clock: clock)
        _ = try await waitUntil(manager, "launch entitlement check") { $0.entitlementsChecked }
        return manager
    }

    @Test func launchReadsEntitlementsFromTheStoreAndOffersTheSafeProducts() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        let manager = try await launchedManager()
        #expect(manager.isPremiumEntitled)
        #expect(manager.purchasedProductIDs == ["symi_plus_monthly"])
        #expect(manager.state.offeredProductIds == ["symi_plus_monthly"])
        #expect(await store.entitlementChecks == 1)
    }

    @Test func launchWithoutPurchaseIsNotEntitled() async throws {
        let manager = try await launchedManager()
        #expect(!manager.isPremiumEntitled)
        #expect(manager.purchasedProductIDs.isEmpty)
        #expect(manager.errorMessage == nil)
    }

    @Test func productsLoadInTheFlagsOrderAndOnlyThoseAskedFor() async throws {
        await store.setProducts(.success([Fixtures.yearly(), Fixtures.monthly()]))
        let manager = try await launchedManager()
        manager.apply(try Fixtures.production())
        await manager.loadProducts()
        #expect(manager.products.map(\.id) == ["symi_plus_monthly"])
        #expect(manager.state.productsPhase == .loaded)
        #expect(!manager.isLoading)
        #expect(await store.productRequests == [["symi_plus_monthly"]])
    }

    @Test func unknownProductIdsAreIgnoredAndReported() async throws {
        let document = try Fixtures.modified(try Fixtures.document()) { flags in
            flags["subscriptionProductIds"] = ["type": "json", "default": ["symi_plus_yearly", "symi_plus_lifetime", "symi_plus_monthly"]]
        }
        let manager = try await launchedManager()
        manager.apply(FlagSnapshot(document: document, context: Fixtures.context()))
        #expect(manager.state.offeredProductIds == ["symi_plus_yearly", "symi_plus_monthly"])
        #expect(manager.state.ignoredProductIds == ["symi_plus_lifetime"])
        await store.setProducts(.success([Fixtures.monthly(), Fixtures.yearly()]))
        await manager.loadProducts()
        #expect(await store.productRequests == [["symi_plus_yearly", "symi_plus_monthly"]])
        #expect(manager.products.map(\.id) == ["symi_plus_yearly", "symi_plus_monthly"])
        // A new document that offers less: what is no longer offered disappears without a reload.
        manager.apply(try Fixtures.production())
        #expect(manager.products.map(\.id) == ["symi_plus_monthly"])
        #expect(manager.state.ignoredProductIds.isEmpty)
    }

    @Test func productsThatFailToLoadLeaveAFriendlyMessageAndNoProducts() async throws {
        await store.setProducts(.failure(StoreError(.productsUnavailable, cause: "NSURLErrorDomain -1009")))
        let manager = try await launchedManager(language: .english)
        await manager.loadProducts()
        #expect(manager.products.isEmpty)
        #expect(manager.state.productsPhase == .unavailable(StoreError(.productsUnavailable, cause: "NSURLErrorDomain -1009")))
        #expect(manager.errorMessage == SymiPlusMessages.productsUnavailable.english)
        #expect(!manager.isLoading)
    }

    @Test func noProductsAtAllIsLoadedButEmpty() async throws {
        await store.setProducts(.success([]))
        let manager = try await launchedManager()
        await manager.loadProducts()
        #expect(manager.state.productsPhase == .loaded)
        #expect(manager.products.isEmpty)
        #expect(manager.errorMessage == nil)
    }

    @Test func verifiedPurchaseEntitlesAtOnce() async throws {
        await store.setPurchase(.success(.verified(Fixtures.entitlement())))
        let manager = try await launchedManager()
        await manager.purchase(Fixtures.monthly())
        #expect(manager.state.activity == .purchased(productId: "symi_plus_monthly"))
        #expect(manager.isPremiumEntitled)
        #expect(await store.purchases == ["symi_plus_monthly"])
        #expect(await store.entitlementChecks == 2, "asked the store again after the purchase")
    }

    @Test func verifiedPurchaseCountsEvenWhenTheFollowingCheckFails() async throws {
        await store.setPurchase(.success(.verified(Fixtures.entitlement())))
        let manager = try await launchedManager()
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        await manager.purchase(Fixtures.monthly())
        #expect(manager.isPremiumEntitled)
    }

    @Test func unverifiedPurchaseIsIgnored() async throws {
        await store.setPurchase(.success(.unverified(productId: "symi_plus_monthly", reason: "invalidSignature")))
        let manager = try await launchedManager()
        await manager.purchase(Fixtures.monthly())
        #expect(!manager.isPremiumEntitled)
        #expect(manager.state.activity == .unverified(productId: "symi_plus_monthly"))
    }

    @Test func pendingPurchaseIsApprovedLaterThroughATransactionUpdate() async throws {
        await store.setPurchase(.success(.pending))
        let manager = try await launchedManager()
        await manager.purchase(Fixtures.monthly())
        #expect(manager.state.activity == .pending(productId: "symi_plus_monthly"))
        #expect(!manager.isPremiumEntitled)
        // The parent approves on their device: StoreKit delivers the transaction through Transaction.updates.
        await store.setEntitlements([Fixtures.entitlement()])
        store.send(.verified(Fixtures.entitlement()))
        let state = try await waitUntil(manager, "approval") { $0.isPremiumEntitled }
        #expect(state.activity == .purchased(productId: "symi_plus_monthly"))
    }

    @Test func cancelledPurchaseShowsNoError() async throws {
        await store.setPurchase(.success(.userCancelled))
        let manager = try await launchedManager()
        await manager.purchase(Fixtures.monthly())
        #expect(manager.state.activity == .cancelled)
        #expect(manager.errorMessage == nil)
        #expect(!manager.isPremiumEntitled)
    }

    @Test func failedPurchaseKeepsTheCauseAndShowsAFriendlyMessage() async throws {
        let error = StoreError(.purchaseFailed, cause: "StoreKitError.networkError")
        await store.setPurchase(.failure(error))
        let manager = try await launchedManager()
        await manager.purchase(Fixtures.monthly())
        #expect(manager.state.activity == .failed(error))
        #expect(manager.state.error?.cause == "StoreKitError.networkError")
        #expect(manager.errorMessage == SymiPlusMessages.purchaseFailed.german)
        manager.dismissResult()
        #expect(manager.errorMessage == nil)
    }

    @Test func restoreThatFindsAPurchase() async throws {
        await store.setSync(.success([Fixtures.entitlement()]))
        let manager = try await launchedManager()
        #expect(!manager.isPremiumEntitled)
        await manager.restorePurchases()
        #expect(manager.isPremiumEntitled)
        #expect(manager.state.activity == .restored(foundPurchases: true))
    }

    @Test func restoreThatFindsNothing() async throws {
        let manager = try await launchedManager()
        await manager.restorePurchases()
        #expect(!manager.isPremiumEntitled)
        #expect(manager.state.activity == .restored(foundPurchases: false))
        #expect(manager.errorMessage == nil)
    }

    @Test func restoreThatFailsOrIsCancelled() async throws {
        await store.setSync(.failure(StoreError(.syncFailed, cause: "offline")))
        let manager = try await launchedManager(language: .english)
        await manager.restorePurchases()
        #expect(manager.errorMessage == SymiPlusMessages.restoreFailed.english)
        await store.setSync(.failure(StoreError(.cancelled, cause: "sign-in cancelled")))
        await manager.restorePurchases()
        #expect(manager.state.activity == .cancelled)
        #expect(manager.errorMessage == nil)
    }

    @Test func restoreWhoseResultCannotBeReadIsAFailureNotNothingFound() async throws {
        let manager = try await launchedManager()
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        await manager.restorePurchases()
        #expect(manager.state.activity == .failed(StoreError(.syncFailed, cause: "entitlements after sync: offline")))
        #expect(manager.errorMessage == SymiPlusMessages.restoreFailed.german)
    }

    @Test func revokedWhileRunningRemovesTheEntitlement() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        let manager = try await launchedManager()
        #expect(manager.isPremiumEntitled)
        // A refund: StoreKit sends the transaction again with a revocation date and leaves it out of currentEntitlements.
        let revoked = Fixtures.entitlement(revoked: Fixtures.now.addingTimeInterval(60))
        await store.setEntitlements([revoked])
        store.send(.verified(revoked))
        _ = try await waitUntil(manager, "revocation") { !$0.isPremiumEntitled }
    }

    @Test func revocationEndsAccessEvenWhenTheStoreCannotBeAskedAgain() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        let manager = try await launchedManager()
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        store.send(.verified(Fixtures.entitlement(revoked: Fixtures.now)))
        _ = try await waitUntil(manager, "revocation") { !$0.isPremiumEntitled }
    }

    @Test func expiryWhileRunningRemovesTheEntitlement() async throws {
        let expiry = Fixtures.now.addingTimeInterval(3_600)
        await store.setEntitlements([Fixtures.entitlement(expires: expiry)])
        let manager = try await launchedManager()
        #expect(manager.isPremiumEntitled)
        // StoreKit sends no update for an expiry; the manager's own check at the expiration date must notice.
        let deadline = Date().addingTimeInterval(5)
        while clock.sleeperCount == 0, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(clock.sleeperCount == 1)
        clock.advance(to: expiry)
        _ = try await waitUntil(manager, "expiry") { !$0.isPremiumEntitled }
    }

    @Test func renewalArrivingLaterKeepsAccess() async throws {
        let firstPeriodEnd = Fixtures.now.addingTimeInterval(3_600)
        await store.setEntitlements([Fixtures.entitlement(expires: firstPeriodEnd)])
        let manager = try await launchedManager()
        let renewal = Fixtures.entitlement(id: 2, original: 1, purchased: firstPeriodEnd, expires: Fixtures.inAMonth)
        await store.setEntitlements([renewal])
        store.send(.verified(renewal))
        _ = try await waitUntil(manager, "renewal") { $0.entitlements == [renewal] }
        // A late update for the past period must not end the renewal, even with no store answer to correct it.
        clock.advance(to: firstPeriodEnd.addingTimeInterval(1))
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        store.send(.verified(Fixtures.entitlement(expires: firstPeriodEnd)))
        // Updates are handled in order: once this one shows, the late one was handled.
        store.send(.verified(Fixtures.entitlement("symi_plus_yearly", id: 9, original: 9)))
        let state = try await waitUntil(manager, "the marker update") { $0.purchasedProductIDs.contains("symi_plus_yearly") }
        #expect(state.purchasedProductIDs == ["symi_plus_monthly", "symi_plus_yearly"])
    }

    @Test func unverifiedUpdateChangesNothing() async throws {
        let manager = try await launchedManager()
        // No store answer afterwards, so only the update itself could grant anything.
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        store.send(.unverified(productId: "symi_plus_monthly", reason: "invalidSignature"))
        store.send(.verified(Fixtures.entitlement("symi_plus_yearly", id: 9, original: 9)))
        _ = try await waitUntil(manager, "the verified update") { !$0.entitlements.isEmpty }
        #expect(manager.purchasedProductIDs == ["symi_plus_yearly"])
    }

    @Test func entitlementCheckFailureKeepsWhatWasVerified() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        let manager = try await launchedManager()
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        await manager.updatePurchasedProducts()
        #expect(manager.isPremiumEntitled)
        #expect(manager.errorMessage == nil)
    }

    @Test func statesStreamStartsWithTheCurrentStateAndFollowsChanges() async throws {
        let manager = try await launchedManager()
        var iterator = manager.states().makeAsyncIterator()
        #expect(await iterator.next() == manager.state)
        await store.setProducts(.success([Fixtures.monthly()]))
        await manager.loadProducts()
        #expect(await iterator.next()?.productsPhase == .loading)
        #expect(await iterator.next()?.products == [Fixtures.monthly()])
    }

    @Test func aSecondPurchaseWaitsForTheFirst() async throws {
        let manager = try await launchedManager()
        await store.setPurchase(.success(.verified(Fixtures.entitlement())))
        async let first: Void = manager.purchase(Fixtures.monthly())
        async let second: Void = manager.purchase(Fixtures.monthly())
        _ = await (first, second)
        #expect(await store.purchases.count == 1)
    }
}
