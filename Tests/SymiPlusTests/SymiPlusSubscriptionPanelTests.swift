import FlagClient
import Foundation
import Testing
@testable import SymiPlus

/// The subscriber's panel on its own: who gets one, and what it offers, in German and English.
@Suite struct SymiPlusSubscriptionPanelTests {
    static let utc = TimeZone(identifier: "UTC") ?? .current
    static let intro = Fixtures.entitlement()

    func state(_ statuses: [SubscriptionStatus], entitlements: [StoreEntitlement] = [intro],
               products: [StoreProduct] = [Fixtures.monthly(), Fixtures.yearly()]) -> PurchaseState {
        Fixtures.decided(PurchaseState(offeredProductIds: products.map(\.id), products: products, productsPhase: .loaded,
                                       entitlements: entitlements, entitlementsChecked: true, statuses: statuses))
    }

    func panel(_ state: PurchaseState, _ locale: String) throws -> SymiPlusSubscriptionPanel? {
        SymiPlusScreen(flags: try Fixtures.offeringBoth(locale: locale), purchases: state, timeZone: Self.utc).subscription
    }

    @Test(arguments: ["de_DE", "en_US"])
    func noPanelForSomeoneWithoutSymiPlusOrAFailedRenewal(locale: String) throws {
        #expect(try panel(state([], entitlements: []), locale) == nil)
        #expect(try panel(state([Fixtures.status(.expired, Self.intro)], entitlements: []), locale) == nil)
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aFailedRenewalWithoutAccessStillGetsTheNoticeAndTheWayToFixIt(locale: String) throws {
        let lapsed = Fixtures.entitlement(expires: Fixtures.now.addingTimeInterval(-10 * 86_400))
        let panel = try #require(try panel(state([Fixtures.status(.inBillingRetryPeriod, lapsed)], entitlements: []), locale))
        #expect(panel.status == nil && panel.refund == nil && panel.switchOffers.isEmpty)
        #expect(panel.billingNotice == SymiPlusMessages.billingIssueEnded(SymiPlusLanguage(localeIdentifier: locale)))
        #expect(panel.manageButton == (locale == "de_DE" ? "Abo verwalten" : "Manage subscription"))
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aCancelledSubscriptionIsOfferedNoSwitch(locale: String) throws {
        let panel = try #require(try panel(state([Fixtures.status(.subscribed, Self.intro, Fixtures.renewal(willAutoRenew: false))]), locale))
        #expect(panel.switchOffers.isEmpty, "switching would renew what the subscriber cancelled")
        #expect(panel.refund?.transactionId == 1)
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aSwitchToAProductTheFlagsDoNotOfferNamesNoId(locale: String) throws {
        let switching = state([Fixtures.status(.subscribed, Self.intro, Fixtures.renewal(to: "symi_plus_yearly"))],
                              products: [Fixtures.monthly()])
        let panel = try #require(try panel(switching, locale))
        #expect(panel.status == (locale == "de_DE" ? "Aktiv. Dein Abo wechselt am 14. Februar 2027."
                                                   : "Active. Your subscription changes on February 14, 2027."))
        #expect(panel.switchOffers.isEmpty, "a switch is already scheduled")
    }

    @Test func aYearlySubscriberIsOfferedMonthly() throws {
        let yearly = Fixtures.entitlement("symi_plus_yearly", expires: Fixtures.now.addingTimeInterval(365 * 86_400))
        let panel = try #require(try panel(state([Fixtures.status(.subscribed, yearly, Fixtures.renewal("symi_plus_yearly"))],
                                                 entitlements: [yearly]), "de_DE"))
        #expect(panel.switchOffers.map(\.buttonTitle) == ["Zu Symi Plus monatlich wechseln (2,99 €)"])
        #expect(panel.status == "Aktiv. Verlängert sich am 15. Januar 2028.")
    }
}
