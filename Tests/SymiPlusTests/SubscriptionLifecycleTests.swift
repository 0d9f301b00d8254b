import FlagClient
import Foundation
import TestSupport
import Testing
@testable import SymiPlus

/// Whole subscription lives on the scripted store, step by step through the purchase manager, with what the screen
/// says in German and English at each step. Before every step the store fails at everything first: access may never
/// be less than before that failure.
@MainActor
@Suite struct SubscriptionLifecycleTests {
    static let day: TimeInterval = 86_400
    static let utc = TimeZone(identifier: "UTC") ?? .current
    /// 2027-02-14, 2027-03-16: the ends of the first two monthly periods.
    static let m1 = Fixtures.inAMonth
    static let m2 = Fixtures.inAMonth.addingTimeInterval(30 * day)

    let clock = ManualClock()
    let store: ScriptedStore

    init() {
        store = ScriptedStore(clock: clock)
    }

    /// One moment: the store's facts from `at` on, and what the app must make of them.
    struct Step {
        let name: String
        let at: Date
        var entitlements: [StoreEntitlement] = []
        var statuses: [SubscriptionStatus] = []
        /// A transaction update delivered at this step (a refund, an approval).
        var update: StoreTransactionUpdate?
        let entitled: Bool
        /// The panel's status line and billing notice, German then English (`nil`: none).
        var status: (String, String)?
        var billing: (String, String)?
    }

    func launched() async throws -> PurchaseManager {
        await store.setProducts(.success([Fixtures.monthly(), Fixtures.yearly()]))
        let manager = PurchaseManager(store: store, clock: clock)
        _ = try await waitUntil(manager, "launch entitlement check") { $0.entitlementsChecked }
        manager.apply(try Fixtures.offeringBoth())
        await manager.loadProducts()
        return manager
    }

    func run(_ steps: [Step], flags: (String) throws -> FlagSnapshot = { try Fixtures.offeringBoth(locale: $0) }) async throws {
        let manager = try await launched()
        for step in steps {
            let before = manager.isPremiumEntitled
            await store.setFailing(true)
            clock.advance(to: max(step.at, clock.now()))
            await manager.updatePurchasedProducts()
            #expect(manager.isPremiumEntitled || !before, "\(step.name): a failing store took access away")
            await store.setFailing(false)
            await store.setEntitlements(step.entitlements)
            await store.setStatuses(step.statuses)
            if let update = step.update {
                store.send(update)
                _ = try await waitUntil(manager, "\(step.name): the update") { $0.isPremiumEntitled == step.entitled }
            }
            await manager.updatePurchasedProducts()
            #expect(manager.isPremiumEntitled == step.entitled, "\(step.name)")
            for (index, locale) in ["de_DE", "en_US"].enumerated() {
                let screen = SymiPlusScreen(flags: try flags(locale), purchases: manager.state, timeZone: Self.utc)
                let expectedStatus = step.status.map { index == 0 ? $0.0 : $0.1 }
                let expectedBilling = step.billing.map { index == 0 ? $0.0 : $0.1 }
                #expect(screen.subscription?.status == expectedStatus, "\(step.name) \(locale)")
                #expect(screen.subscription?.billingNotice == expectedBilling, "\(step.name) \(locale)")
                #expect((screen.status == .subscribed) == step.entitled, "\(step.name) \(locale)")
            }
        }
    }

    static let intro = Fixtures.entitlement()
    static let paid = Fixtures.entitlement(id: 2, original: 1, purchased: m1, expires: m2)
    static let recovered = Fixtures.entitlement(id: 3, original: 1, purchased: m2.addingTimeInterval(20 * day),
                                                expires: m2.addingTimeInterval(50 * day))

    @Test func freeIntroConvertsFailsRetriesInGraceAndRecovers() async throws {
        let graceEnd = Self.m2.addingTimeInterval(16 * Self.day)
        try await run([
            Step(name: "free intro started", at: Fixtures.now, entitlements: [Self.intro], statuses: [Fixtures.status(.subscribed, Self.intro)],
                 entitled: true, status: ("Aktiv. Verlängert sich am 14. Februar 2027.", "Active. Renews on February 14, 2027.")),
            Step(name: "converted", at: Self.m1.addingTimeInterval(3_600), entitlements: [Self.paid],
                 statuses: [Fixtures.status(.subscribed, Self.paid)],
                 entitled: true, status: ("Aktiv. Verlängert sich am 16. März 2027.", "Active. Renews on March 16, 2027.")),
            Step(name: "renewal fails, grace period", at: Self.m2.addingTimeInterval(3_600), entitlements: [Self.paid],
                 statuses: [Fixtures.status(.inGracePeriod, Self.paid, Fixtures.renewal(graceUntil: graceEnd, retrying: true))],
                 entitled: true, status: ("Aktiv", "Active"),
                 billing: ("Bei der Verlängerung deines Abos hat die Zahlung nicht geklappt. Symi Plus bleibt bis zum 1. April 2027 aktiv. Du kannst deine Zahlungsmethode in Ruhe unter „Abo verwalten“ prüfen.",
                           "The payment for your subscription's renewal didn't go through. Symi Plus stays active until April 1, 2027. You can check your payment method under “Manage subscription” whenever it suits you.")),
            Step(name: "grace over, billing retry", at: graceEnd.addingTimeInterval(3_600),
                 statuses: [Fixtures.status(.inBillingRetryPeriod, Self.paid, Fixtures.renewal(graceUntil: graceEnd, retrying: true))],
                 entitled: false,
                 billing: ("Dein Abo konnte nicht verlängert werden, weil die Zahlung nicht geklappt hat. Sobald deine Zahlungsmethode unter „Abo verwalten“ aktualisiert ist, ist Symi Plus wieder da.",
                           "Your subscription couldn't be renewed because the payment didn't go through. As soon as your payment method is updated under “Manage subscription”, Symi Plus is back.")),
            Step(name: "recovered", at: Self.m2.addingTimeInterval(20 * Self.day), entitlements: [Self.recovered],
                 statuses: [Fixtures.status(.subscribed, Self.recovered)],
                 entitled: true, status: ("Aktiv. Verlängert sich am 5. Mai 2027.", "Active. Renews on May 5, 2027.")),
        ])
    }

    @Test func billingRetryWithoutGraceKeepsTheCourtesyWindow() async throws {
        try await run([
            Step(name: "converted", at: Self.m1.addingTimeInterval(3_600), entitlements: [Self.paid],
                 statuses: [Fixtures.status(.subscribed, Self.paid)], entitled: true,
                 status: ("Aktiv. Verlängert sich am 16. März 2027.", "Active. Renews on March 16, 2027.")),
            Step(name: "renewal fails, billing retry", at: Self.m2.addingTimeInterval(3_600),
                 statuses: [Fixtures.status(.inBillingRetryPeriod, Self.paid, Fixtures.renewal(retrying: true))],
                 entitled: true, status: ("Aktiv", "Active"),
                 billing: ("Bei der Verlängerung deines Abos hat die Zahlung nicht geklappt. Symi Plus bleibt bis zum 19. März 2027 aktiv. Du kannst deine Zahlungsmethode in Ruhe unter „Abo verwalten“ prüfen.",
                           "The payment for your subscription's renewal didn't go through. Symi Plus stays active until March 19, 2027. You can check your payment method under “Manage subscription” whenever it suits you.")),
            Step(name: "courtesy window over", at: Self.m2.addingTimeInterval(3 * Self.day + 60),
                 statuses: [Fixtures.status(.inBillingRetryPeriod, Self.paid, Fixtures.renewal(retrying: true))], entitled: false,
                 billing: ("Dein Abo konnte nicht verlängert werden, weil die Zahlung nicht geklappt hat. Sobald deine Zahlungsmethode unter „Abo verwalten“ aktualisiert ist, ist Symi Plus wieder da.",
                           "Your subscription couldn't be renewed because the payment didn't go through. As soon as your payment method is updated under “Manage subscription”, Symi Plus is back.")),
            Step(name: "recovered", at: Self.m2.addingTimeInterval(20 * Self.day), entitlements: [Self.recovered],
                 statuses: [Fixtures.status(.subscribed, Self.recovered)], entitled: true,
                 status: ("Aktiv. Verlängert sich am 5. Mai 2027.", "Active. Renews on May 5, 2027.")),
        ])
    }

    @Test func priceIncreasePendingAgreedDeclinedAndExpired() async throws {
        let flags: (String) throws -> FlagSnapshot = {
            try Fixtures.production(setting: "subscriptionPriceIncreaseMessagingEnabled", to: true, locale: $0)
        }
        let manager = try await launched()
        var notices: [String?] = []
        for (step, (priceIncrease, autoRenew)) in [(SubscriptionRenewalInfo.PriceIncreaseStatus.pending, true), (.agreed, true),
                                                   (.pending, false)].enumerated() {
            let before = manager.isPremiumEntitled
            await store.setFailing(true)
            clock.advance(to: Fixtures.now.addingTimeInterval(Double(step) * Self.day))
            await manager.updatePurchasedProducts()
            #expect(manager.isPremiumEntitled || !before, "a failing store took access away")
            await store.setFailing(false)
            await store.setEntitlements([Self.intro])
            await store.setStatuses([Fixtures.status(.subscribed, Self.intro,
                                                     Fixtures.renewal(willAutoRenew: autoRenew, priceIncrease: priceIncrease))])
            await manager.updatePurchasedProducts()
            for locale in ["de_DE", "en_US"] {
                let screen = SymiPlusScreen(flags: try flags(locale), purchases: manager.state, timeZone: Self.utc)
                notices.append(screen.priceChangeNotice.map { String($0.prefix(9)) })
                if !autoRenew {
                    #expect(screen.subscription?.status == (locale == "de_DE"
                        ? "Aktiv, endet am 14. Februar 2027. Bis dahin kannst du alles wie gewohnt nutzen."
                        : "Active, ends on February 14, 2027. Until then you can use everything as usual."))
                }
            }
            #expect(manager.isPremiumEntitled)
        }
        #expect(notices == ["Der Preis", "The price", nil, nil, nil, nil], "only the pending increase of a renewing subscriber")
        // Not accepted by the end of the period: expired.
        await store.setFailing(true)
        clock.advance(to: Self.m1.addingTimeInterval(60))
        await manager.updatePurchasedProducts()
        #expect(manager.isPremiumEntitled, "a failing store takes nothing away")
        await store.setFailing(false)
        await store.setStatuses([Fixtures.status(.expired, Self.intro,
                                                 Fixtures.renewal(willAutoRenew: false, expired: .didNotConsentToPriceIncrease))])
        await manager.updatePurchasedProducts()
        #expect(!manager.isPremiumEntitled)
        #expect(SymiPlusScreen(flags: try flags("de_DE"), purchases: manager.state).subscription == nil)
    }

    @Test func refundMidPeriodEndsAccessEvenWhileTheStoreFails() async throws {
        let refunded = Fixtures.entitlement(revoked: Fixtures.now.addingTimeInterval(10 * Self.day))
        try await run([
            Step(name: "subscribed", at: Fixtures.now, entitlements: [Self.intro], statuses: [Fixtures.status(.subscribed, Self.intro)],
                 entitled: true, status: ("Aktiv. Verlängert sich am 14. Februar 2027.", "Active. Renews on February 14, 2027.")),
            Step(name: "refunded", at: Fixtures.now.addingTimeInterval(10 * Self.day),
                 statuses: [Fixtures.status(.revoked, refunded)], update: .verified(refunded), entitled: false),
        ])
    }

    @Test func aRefundArrivingWhileTheStoreCannotBeReadStillEndsAccess() async throws {
        // The verified revocation alone ends access: it is a fact from the store, not a failure.
        let refunded = Fixtures.entitlement(revoked: Fixtures.now.addingTimeInterval(10 * Self.day))
        let manager = try await launched()
        await store.setEntitlements([Self.intro])
        await store.setStatuses([Fixtures.status(.subscribed, Self.intro)])
        await manager.updatePurchasedProducts()
        #expect(manager.isPremiumEntitled)
        await store.setFailing(true)
        store.send(.verified(refunded))
        _ = try await waitUntil(manager, "refund while offline") { !$0.isPremiumEntitled }
    }

    /// Access kept after a failed read stays kept when an update that is no refund arrives while the store still
    /// fails (an old period's transaction): the update is decided on the last read's statuses, which are stale.
    @Test func anUpdateThatIsNoRefundNeverEndsAccessKeptWhileTheStoreFails() async throws {
        let manager = try await launched()
        clock.advance(to: Self.m2.addingTimeInterval(3_600))
        await store.setEntitlements([])
        await store.setStatuses([Fixtures.status(.inBillingRetryPeriod, Self.paid, Fixtures.renewal(retrying: true))])
        await manager.updatePurchasedProducts()
        #expect(manager.isPremiumEntitled, "billing retry inside the courtesy window")
        await store.setFailing(true)
        clock.advance(to: Self.m2.addingTimeInterval(4 * Self.day))
        await manager.updatePurchasedProducts()
        #expect(manager.isPremiumEntitled, "the window ended, but the store could not be asked: kept")
        let checks = await store.entitlementChecks
        store.send(.verified(Self.intro))   // an earlier period's transaction, long expired
        let deadline = Date().addingTimeInterval(10)
        while await store.entitlementChecks == checks, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await store.entitlementChecks > checks, "the update was handled (the manager asked the store again)")
        #expect(manager.isPremiumEntitled, "an update decided on stale statuses takes nothing away")
    }

    @Test func cancelledStaysActiveUntilItsEnd() async throws {
        let cancelled = Fixtures.status(.subscribed, Self.intro, Fixtures.renewal(willAutoRenew: false))
        try await run([
            Step(name: "cancelled", at: Fixtures.now, entitlements: [Self.intro], statuses: [cancelled], entitled: true,
                 status: ("Aktiv, endet am 14. Februar 2027. Bis dahin kannst du alles wie gewohnt nutzen.",
                          "Active, ends on February 14, 2027. Until then you can use everything as usual.")),
            Step(name: "a day before its end", at: Self.m1.addingTimeInterval(-Self.day), entitlements: [Self.intro], statuses: [cancelled],
                 entitled: true, status: ("Aktiv, endet am 14. Februar 2027. Bis dahin kannst du alles wie gewohnt nutzen.",
                                          "Active, ends on February 14, 2027. Until then you can use everything as usual.")),
            Step(name: "ended", at: Self.m1.addingTimeInterval(60), entitlements: [Self.intro],
                 statuses: [Fixtures.status(.expired, Self.intro, Fixtures.renewal(willAutoRenew: false, expired: .autoRenewDisabled))],
                 entitled: false),
        ])
    }

    @Test func monthlyToYearly() async throws {
        let yearly = Fixtures.entitlement("symi_plus_yearly", id: 4, original: 1, purchased: Self.m1,
                                          expires: Self.m1.addingTimeInterval(365 * Self.day))
        try await run([
            Step(name: "monthly", at: Fixtures.now, entitlements: [Self.intro], statuses: [Fixtures.status(.subscribed, Self.intro)],
                 entitled: true, status: ("Aktiv. Verlängert sich am 14. Februar 2027.", "Active. Renews on February 14, 2027.")),
            Step(name: "switch scheduled", at: Fixtures.now.addingTimeInterval(Self.day), entitlements: [Self.intro],
                 statuses: [Fixtures.status(.subscribed, Self.intro, Fixtures.renewal(to: "symi_plus_yearly"))], entitled: true,
                 status: ("Aktiv. Wechselt am 14. Februar 2027 zu Symi Plus jährlich.",
                          "Active. Switches to Symi Plus jährlich on February 14, 2027.")),
            Step(name: "yearly", at: Self.m1.addingTimeInterval(60), entitlements: [yearly],
                 statuses: [Fixtures.status(.subscribed, yearly, Fixtures.renewal("symi_plus_yearly"))], entitled: true,
                 status: ("Aktiv. Verlängert sich am 14. Februar 2028.", "Active. Renews on February 14, 2028.")),
        ])
    }

    @Test(arguments: ["de_DE", "en_US"])
    func theSwitchIsOfferedToAMonthlySubscriber(locale: String) async throws {
        let manager = try await launched()
        await store.setEntitlements([Self.intro])
        await store.setStatuses([Fixtures.status(.subscribed, Self.intro)])
        await manager.updatePurchasedProducts()
        let screen = SymiPlusScreen(flags: try Fixtures.offeringBoth(locale: locale), purchases: manager.state, timeZone: Self.utc)
        let panel = try #require(screen.subscription)
        #expect(panel.switchOffers.map(\.id) == ["symi_plus_yearly"])
        #expect(panel.switchOffers.map(\.buttonTitle) == [locale == "de_DE" ? "Zu Symi Plus jährlich wechseln (29,99 €)"
                                                                            : "Switch to Symi Plus jährlich (29,99 €)"])
        #expect(panel.manageButton == (locale == "de_DE" ? "Abo verwalten" : "Manage subscription"))
        #expect(panel.refund == .init(title: locale == "de_DE" ? "Rückerstattung anfordern" : "Request a refund", transactionId: 1))
        #expect(screen.redeemCodeButton == (locale == "de_DE" ? "Code einlösen" : "Redeem code"))
        #expect(screen.offers.isEmpty)
    }

    @Test(arguments: ["de_DE", "en_US"])
    func askToBuyApprovedLate(locale: String) async throws {
        await store.setPurchase(.success(.pending))
        let manager = try await launched()
        await manager.purchase(Fixtures.monthly())
        let flags = try Fixtures.production(locale: locale)
        let waiting = SymiPlusScreen(flags: flags, purchases: manager.state)
        #expect(waiting.status == .pending && waiting.message == SymiPlusMessages.pending(SymiPlusLanguage(localeIdentifier: locale)))
        // Two days later the parent approves; the store happens to be unreachable at that moment.
        clock.advance(to: Fixtures.now.addingTimeInterval(2 * Self.day))
        await store.setFailing(true)
        let approved = Fixtures.entitlement(purchased: Fixtures.now.addingTimeInterval(2 * Self.day))
        store.send(.verified(approved))
        let state = try await waitUntil(manager, "late approval") { $0.isPremiumEntitled }
        #expect(state.activity == .purchased(productId: "symi_plus_monthly"))
        let screen = SymiPlusScreen(flags: flags, purchases: state)
        #expect(screen.status == .subscribed && screen.message == SymiPlusMessages.subscribed(SymiPlusLanguage(localeIdentifier: locale)))
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aGracePeriodListedWhileTheStatusesCannotBeReadKeepsAccess(locale: String) async throws {
        clock.advance(to: Self.m2.addingTimeInterval(3_600))
        await store.setEntitlements([Self.paid])
        await store.setStatuses([Fixtures.status(.inGracePeriod, Self.paid, Fixtures.renewal(graceUntil: Self.m2.addingTimeInterval(16 * Self.day)))])
        await store.setStatusesError(StoreError(.statusUnavailable, cause: "offline"))
        let manager = try await launched()
        #expect(manager.isPremiumEntitled, "StoreKit lists it although its expirationDate has passed")
        let screen = SymiPlusScreen(flags: try Fixtures.offeringBoth(locale: locale), purchases: manager.state, timeZone: Self.utc)
        #expect(screen.subscription?.status == (locale == "de_DE" ? "Aktiv" : "Active"), "no 'renews on' a past date")
        #expect(manager.state.access.reviewAt == Self.m2.addingTimeInterval(3_600 + Self.day), "asked again daily")
    }

    @Test func theReviewAtTheEndOfAGracePeriodAsksTheStoreInsteadOfTheClock() async throws {
        let graceEnd = Self.m2.addingTimeInterval(16 * Self.day)
        clock.advance(to: Self.m2.addingTimeInterval(3_600))
        await store.setEntitlements([Self.paid])
        await store.setStatuses([Fixtures.status(.inGracePeriod, Self.paid, Fixtures.renewal(graceUntil: graceEnd, retrying: true))])
        let manager = try await launched()
        #expect(manager.isPremiumEntitled, "listed in grace although its expirationDate has passed")
        #expect(manager.state.access.reviewAt == graceEnd)
        // The review fires at the grace period's end with the store unreachable: nothing is taken away.
        await store.setFailing(true)
        let checks = await store.entitlementChecks
        clock.advance(to: graceEnd)
        let deadline = Date().addingTimeInterval(5)
        while await store.entitlementChecks == checks, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(await store.entitlementChecks > checks, "the review asked the store")
        #expect(manager.isPremiumEntitled)
    }
}
