import Testing
@testable import SymiPlus

/// Whether a product offers this user a free introduction.
@Suite struct StoreProductTests {
    @Test func onlyAFreeOfferTheUserIsEligibleForCounts() {
        #expect(Fixtures.monthly().offersFreeIntroduction)
        #expect(!Fixtures.monthly(eligible: false).offersFreeIntroduction)
        #expect(!Fixtures.monthly(intro: .payAsYouGo).offersFreeIntroduction)
        #expect(!Fixtures.monthly(intro: .payUpFront).offersFreeIntroduction)
        #expect(!Fixtures.monthly(intro: nil).offersFreeIntroduction)
    }

    @Test func periods() {
        #expect(StoreProduct.Period.month == StoreProduct.Period(value: 1, unit: .month))
        #expect(StoreProduct.Period.year != StoreProduct.Period(value: 12, unit: .month))
        #expect(StoreProduct.Period.Unit.allCases.map(\.rawValue) == ["day", "week", "month", "year"])
    }
}
