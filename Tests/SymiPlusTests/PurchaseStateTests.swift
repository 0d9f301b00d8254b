import Testing
@testable import SymiPlus

/// The derived values of the purchase state.
@Suite struct PurchaseStateTests {
    @Test func entitlementOnlyForCatalogueProducts() {
        #expect(Fixtures.decided(PurchaseState(entitlements: [Fixtures.entitlement()])).isPremiumEntitled)
        #expect(Fixtures.decided(PurchaseState(entitlements: [Fixtures.entitlement("symi_plus_yearly")])).isPremiumEntitled)
        #expect(!PurchaseState(entitlements: [Fixtures.entitlement()]).isPremiumEntitled, "nothing counts before a decision")
        let other = Fixtures.decided(PurchaseState(entitlements: [Fixtures.entitlement("tip_jar_small")]))
        #expect(!other.isPremiumEntitled)
        #expect(other.purchasedProductIDs == ["tip_jar_small"])
        #expect(!PurchaseState().isPremiumEntitled)
    }

    @Test func loadingAndError() {
        let failure = StoreError(.purchaseFailed, cause: "x")
        let unavailable = StoreError(.productsUnavailable, cause: "y")
        #expect(PurchaseState(productsPhase: .loading).isLoading)
        #expect(PurchaseState(activity: .purchasing(productId: "p")).isLoading)
        #expect(PurchaseState(activity: .restoring).isLoading)
        #expect(!PurchaseState(productsPhase: .loaded, activity: .pending(productId: "p")).isLoading)
        #expect(PurchaseState(productsPhase: .unavailable(unavailable), activity: .failed(failure)).error == failure)
        #expect(PurchaseState(productsPhase: .unavailable(unavailable)).error == unavailable)
        #expect(PurchaseState(activity: .cancelled).error == nil)
    }

    @Test func insertingVerifiedTransactions() {
        var state = PurchaseState()
        state.insert(Fixtures.entitlement(), activeAt: Fixtures.now)
        #expect(Fixtures.decided(state).isPremiumEntitled)
        state.insert(Fixtures.entitlement(id: 2, purchased: Fixtures.inAMonth, expires: Fixtures.inAMonth.addingTimeInterval(86_400)),
                     activeAt: Fixtures.now)
        #expect(state.entitlements.map(\.transactionId) == [2], "a renewal replaces its product's entitlement")
        state.insert(Fixtures.entitlement(id: 1, expires: Fixtures.now), activeAt: Fixtures.now)
        #expect(state.entitlements.map(\.transactionId) == [2], "an older expired period leaves the renewal alone")
        state.insert(Fixtures.entitlement(id: 1, revoked: Fixtures.now), activeAt: Fixtures.now)
        #expect(state.entitlements.isEmpty, "a revocation ends the whole subscription")
    }
}
