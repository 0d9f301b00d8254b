import FlagClient
import FlagKit
import Foundation
import SymiCatalog
import SymiPlus
import SymiSchema
import TestSupport
import Testing

/// The experiment arm on the paywall: shown when StoreKit loaded it in the default products' group, the defaults
/// otherwise; in pure form, and through the purchase manager on the scripted store with a split from a real document.
@MainActor
@Suite struct PaywallChoiceTests {
    static let group = "21500001"

    /// A loaded product in `group` with a month's period.
    static func product(_ id: String, price: String, period: StoreProduct.Period = .month, group: String? = PaywallChoiceTests.group,
                        offers: [String] = []) -> StoreProduct {
        StoreProduct(id: id, displayName: "Symi Plus monatlich", description: "Alle Premium-Funktionen", displayPrice: price,
                     subscriptionPeriod: period, subscriptionGroupID: group,
                     promotionalOffers: offers.map { StoreProduct.PromotionalOffer(id: $0, paymentMode: .payAsYouGo, displayPrice: "2,49 €", period: .month, periodCount: 3) })
    }

    static let monthly = product("symi_plus_monthly", price: "2,99 €")
    static let yearly = product("symi_plus_yearly", price: "29,99 €", period: .year)
    static let monthly499 = product("symi_plus_monthly_499", price: "4,99 €", offers: ["winback"])

    @Test func theArmReplacesTheDefaultOfItsPeriod() {
        let chosen = PaywallChoice.choose(defaults: [Self.monthly, Self.yearly], loaded: [Self.monthly, Self.yearly, Self.monthly499],
                                          paywallProduct: "symi_plus_monthly_499")
        #expect(chosen.products.map(\.id) == ["symi_plus_monthly_499", "symi_plus_yearly"])
        #expect(chosen.outcome == .shown(product: "symi_plus_monthly_499", offer: nil))
        // A yearly arm with only the monthly default: it goes first, the default stays.
        let yearlyArm = PaywallChoice.choose(defaults: [Self.monthly], loaded: [Self.monthly, Self.yearly], paywallProduct: "symi_plus_yearly")
        #expect(yearlyArm.products.map(\.id) == ["symi_plus_yearly", "symi_plus_monthly"])
        // An offer StoreKit lists: the product is shown (whether its terms apply is PaywallOffer's decision).
        let offered = PaywallChoice.choose(defaults: [Self.monthly], loaded: [Self.monthly, Self.monthly499],
                                           paywallProduct: "symi_plus_monthly_499/winback")
        #expect(offered.products.map(\.id) == ["symi_plus_monthly_499"] && offered.outcome == .shown(product: "symi_plus_monthly_499", offer: "winback"))
        #expect(PaywallChoice.choose(defaults: [Self.monthly], loaded: [Self.monthly], paywallProduct: "") == ([Self.monthly], .noExperiment))
    }

    @Test func everythingElseFallsBackToTheDefaults() {
        let otherGroup = Self.product("symi_plus_monthly_399", price: "3,99 €", group: "99")
        let noGroup = Self.product("symi_plus_monthly_399", price: "3,99 €", group: nil)
        let notSubscription = Self.product("symi_plus_monthly_399", price: "3,99 €", period: .month, group: Self.group)
        let cases: [(String, [StoreProduct], PaywallChoice.Fallback)] = [
            ("symi plus", [], .notAProductId),
            ("a/b/c", [], .notAProductId),
            ("/winback", [], .notAProductId),
            ("symi_plus_lifetime", [Self.product("symi_plus_lifetime", price: "99 €")], .unknownProduct),
            ("symi_plus_monthly_399", [], .notLoaded),
            ("symi_plus_monthly_399", [otherGroup], .otherGroup),
            ("symi_plus_monthly_399", [noGroup], .otherGroup),
            ("symi_plus_monthly_499/spring", [Self.monthly499], .offerNotOffered),
        ]
        for (value, extra, reason) in cases {
            let chosen = PaywallChoice.choose(defaults: [Self.monthly, Self.yearly], loaded: [Self.monthly, Self.yearly] + extra, paywallProduct: value)
            #expect(chosen.products.map(\.id) == ["symi_plus_monthly", "symi_plus_yearly"], "\(value)")
            #expect(chosen.outcome == .fallback(reason), "\(value)")
        }
        var notASubscription = notSubscription
        notASubscription.subscriptionPeriod = nil
        #expect(PaywallChoice.choose(defaults: [Self.monthly], loaded: [Self.monthly, notASubscription], paywallProduct: "symi_plus_monthly_399").outcome
            == .fallback(.otherGroup))
        // No default loaded: the arm's group cannot be checked, so nothing new is shown (the screen says the store is
        // unavailable, as without an experiment).
        #expect(PaywallChoice.choose(defaults: [], loaded: [Self.monthly499], paywallProduct: "symi_plus_monthly_499").products.isEmpty)
    }

    @Test func onlyCatalogueProductsAreRequested() {
        #expect(PaywallChoice.productIds(defaults: ["symi_plus_monthly"], paywallProduct: "symi_plus_monthly_499/winback")
            == ["symi_plus_monthly", "symi_plus_monthly_499"])
        #expect(PaywallChoice.productIds(defaults: ["symi_plus_monthly"], paywallProduct: "symi_plus_monthly") == ["symi_plus_monthly"])
        for value in ["", "symi_plus_lifetime", "a b"] {
            #expect(PaywallChoice.productIds(defaults: ["symi_plus_monthly"], paywallProduct: value) == ["symi_plus_monthly"], "\(value)")
        }
    }

    /// Production with `paywallProduct` split 50/50 between the 4.99 product and `rest`.
    static func split(rest: String) throws -> FlagDocument {
        try Fixtures.modified(try Fixtures.document()) { flags in
            flags["paywallProduct"] = ["type": "string", "default": .string(rest),
                                       "rules": [["value": "symi_plus_monthly_499", "rollout": 50]]]
        }
    }

    /// An install id whose bucket puts it in the 4.99 arm (`inArm`) or not.
    static func install(inArm: Bool, of document: FlagDocument) throws -> EvaluationContext {
        for index in 0..<1_000 {
            let context = Fixtures.context(installId: "5A1B0000-0000-4000-8000-\(String(format: "%012d", index))")
            if (document.evaluate("paywallProduct", context: context).value == "symi_plus_monthly_499") == inArm { return context }
        }
        throw WaitTimeout(what: "an install \(inArm ? "in" : "outside") the arm", state: PurchaseState())
    }

    @Test func theManagerShowsTheInstallsArmAndFallsBackWhenItDidNotLoad() async throws {
        let clock = ManualClock(Fixtures.now)
        let store = ScriptedStore(clock: clock)
        let manager = PurchaseManager(store: store, clock: clock)
        let document = try Self.split(rest: "")
        await store.setProducts(.success([Self.monthly, Self.yearly, Self.monthly499]))

        manager.apply(FlagSnapshot(document: document, context: try Self.install(inArm: true, of: document)))
        #expect(manager.state.offeredProductIds == ["symi_plus_monthly", "symi_plus_monthly_499"] && manager.state.paywallProduct == "symi_plus_monthly_499")
        await manager.loadProducts()
        #expect(manager.products.map(\.id) == ["symi_plus_monthly_499"], "in place of the monthly default")
        #expect(manager.state.paywallOutcome == .shown(product: "symi_plus_monthly_499", offer: nil))
        #expect(SymiPlusScreen(flags: FlagSnapshot(document: document, context: try Self.install(inArm: true, of: document)),
                               purchases: manager.state).offers.map(\.id) == ["symi_plus_monthly_499"])

        // The other half: no experiment for it (""), the defaults as today; nothing more is requested.
        manager.apply(FlagSnapshot(document: document, context: try Self.install(inArm: false, of: document)))
        #expect(manager.state.offeredProductIds == ["symi_plus_monthly"] && manager.products.isEmpty,
                "the arm's product goes at once; the default comes with the next load")
        await manager.loadProducts()
        #expect(manager.products.map(\.id) == ["symi_plus_monthly"] && manager.state.paywallOutcome == .noExperiment)

        // The arm's product is missing from App Store Connect: the defaults, never an empty paywall.
        await store.setProducts(.success([Self.monthly, Self.yearly]))
        manager.apply(FlagSnapshot(document: document, context: try Self.install(inArm: true, of: document)))
        await manager.loadProducts()
        #expect(manager.products.map(\.id) == ["symi_plus_monthly"] && manager.state.paywallOutcome == .fallback(.notLoaded))
        #expect(await store.productRequests.last == ["symi_plus_monthly", "symi_plus_monthly_499"])
    }
}
