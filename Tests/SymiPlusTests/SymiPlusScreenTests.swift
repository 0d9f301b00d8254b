import FlagClient
import Foundation
import SymiSchema
import Testing
@testable import SymiPlus

/// Every state of the Symi Plus screen, in German and English, from `flags/production.json`.
@Suite struct SymiPlusScreenTests {
    static let locales = ["de_DE", "en_US"]

    func screen(_ locale: String, _ state: PurchaseState, flags: FlagSnapshot? = nil) throws -> SymiPlusScreen {
        SymiPlusScreen(flags: try flags ?? Fixtures.production(locale: locale), purchases: state)
    }

    func loaded(_ products: [StoreProduct], activity: PurchaseState.Activity = .idle,
                entitlements: [StoreEntitlement] = []) -> PurchaseState {
        Fixtures.decided(PurchaseState(offeredProductIds: products.map(\.id), products: products, productsPhase: .loaded,
                                       entitlements: entitlements, entitlementsChecked: true, activity: activity))
    }

    @Test(arguments: locales)
    func freeIntroductoryOfferForAnEligibleUser(locale: String) throws {
        let flags = try Fixtures.production(locale: locale)
        let screen = try screen(locale, loaded([Fixtures.monthly()]), flags: flags)
        let copy = SymiFlagValues(flags).subscriptionScreenCopy
        #expect(screen.headline == "Symi Plus")
        #expect(screen.subline == (locale == "de_DE" ? "Für kurze Zeit kostenlos" : "Free for a limited time"))
        #expect(screen.activationMessage == copy.activationMessage)
        #expect(screen.benefits == copy.benefits && screen.benefits.count == 4)
        #expect(screen.offers.map(\.buttonTitle) == [locale == "de_DE" ? "Kostenlos aktivieren" : "Activate for free"])
        #expect(screen.offers.map(\.isFreeIntroduction) == [true])
        #expect(screen.offers.map(\.title) == ["Symi Plus monatlich"])
        #expect(screen.restoreButton == (locale == "de_DE" ? "Käufe wiederherstellen" : "Restore purchases"))
        #expect(screen.restoreHint == copy.restoreHint)
        #expect(screen.futurePricingNotice == copy.futurePricingNotice)
        #expect(screen.priceChangeNotice == nil)
        #expect(screen.status == .ready && screen.message == nil && screen.purchaseEnabled && screen.retryButton == nil)
    }

    @Test(arguments: locales)
    func legalLinksAreAlwaysThere(locale: String) throws {
        for state in [PurchaseState(), loaded([]), loaded([Fixtures.monthly()], entitlements: [Fixtures.entitlement()])] {
            let screen = try screen(locale, state)
            let german = locale == "de_DE"
            #expect(screen.privacyPolicy.title == (german ? "Datenschutz" : "Privacy Policy"))
            #expect(screen.termsOfUse.title == (german ? "Nutzungsbedingungen" : "Terms of Use"))
            #expect(screen.privacyPolicy.url.absoluteString == (german ? "https://symi.app/datenschutz" : "https://symi.app/en/privacy"))
            #expect(screen.termsOfUse.url.absoluteString == (german ? "https://symi.app/nutzungsbedingungen" : "https://symi.app/en/terms"))
        }
    }

    @Test(arguments: locales)
    func notEligibleGetsThePriceFromStoreKit(locale: String) throws {
        let screen = try screen(locale, loaded([Fixtures.monthly(eligible: false)]))
        #expect(screen.offers.map(\.buttonTitle) == [locale == "de_DE" ? "Für 2,99 €/Monat starten" : "Start for 2,99 €/month"])
        #expect(screen.offers.map(\.isFreeIntroduction) == [false])
        #expect(screen.subline == (locale == "de_DE" ? "Erweiterte Funktionen für Berichte und Auswertungen"
                                                       : "Advanced features for reports and insights"))
        #expect(screen.activationMessage == nil, "no free promise to someone who cannot get it")
    }

    @Test(arguments: locales)
    func paidIntroductoryOfferOrNoneShowsThePrice(locale: String) throws {
        for product in [Fixtures.monthly(intro: .payAsYouGo), Fixtures.monthly(intro: .payUpFront), Fixtures.monthly(intro: nil)] {
            let screen = try screen(locale, loaded([product]))
            #expect(screen.offers.map(\.buttonTitle) == [locale == "de_DE" ? "Für 2,99 €/Monat starten" : "Start for 2,99 €/month"])
            #expect(screen.activationMessage == nil)
        }
    }

    @Test(arguments: locales)
    func eachPeriodHasItsTemplate(locale: String) throws {
        var quarterly = Fixtures.monthly(intro: nil)
        quarterly.id = "symi_plus_monthly"
        quarterly.subscriptionPeriod = StoreProduct.Period(value: 3, unit: .month)
        quarterly.displayPrice = "7,99 €"
        let screen = try screen(locale, loaded([Fixtures.yearly(), quarterly]))
        let expected = locale == "de_DE" ? ["Für 29,99 €/Jahr starten", "Für 7,99 € starten"] : ["Start for 29,99 €/year", "Start for 7,99 €"]
        #expect(screen.offers.map(\.buttonTitle) == expected)
    }

    @Test(arguments: locales)
    func loading(locale: String) throws {
        for phase in [PurchaseState.ProductsPhase.notLoaded, .loading] {
            let screen = try screen(locale, PurchaseState(offeredProductIds: ["symi_plus_monthly"], productsPhase: phase))
            #expect(screen.status == .loading)
            #expect(screen.message == SymiPlusMessages.loading(SymiPlusLanguage(localeIdentifier: locale)))
            #expect(screen.offers.isEmpty)
        }
    }

    @Test(arguments: locales)
    func productsUnavailableIsFriendlyAndOffersARetry(locale: String) throws {
        let language = SymiPlusLanguage(localeIdentifier: locale)
        let failed = PurchaseState(productsPhase: .unavailable(StoreError(.productsUnavailable, cause: "offline")))
        for state in [failed, loaded([])] {
            let screen = try screen(locale, state)
            #expect(screen.status == .productsUnavailable)
            #expect(screen.message == SymiPlusMessages.productsUnavailable(language))
            #expect(screen.retryButton == SymiPlusMessages.retry(language))
            #expect(screen.offers.isEmpty)
            #expect(!screen.restoreButton.isEmpty, "restore stays offered")
        }
        #expect(SymiPlusMessages.productsUnavailable(language).contains(language == .german ? "wie gewohnt" : "as usual"))
    }

    @Test(arguments: locales)
    func pendingAskToBuy(locale: String) throws {
        let screen = try screen(locale, loaded([Fixtures.monthly()], activity: .pending(productId: "symi_plus_monthly")))
        #expect(screen.status == .pending)
        #expect(screen.message == SymiPlusMessages.pending(SymiPlusLanguage(localeIdentifier: locale)))
    }

    @Test(arguments: locales)
    func cancelledShowsNoError(locale: String) throws {
        let screen = try screen(locale, loaded([Fixtures.monthly()], activity: .cancelled))
        #expect(screen.status == .ready)
        #expect(screen.message == nil)
        let cancelledRestore = try self.screen(locale, loaded([Fixtures.monthly()], activity: .failed(StoreError(.cancelled, cause: "x"))))
        #expect(cancelledRestore.status == .ready && cancelledRestore.message == nil)
    }

    @Test(arguments: locales)
    func failuresAreFriendly(locale: String) throws {
        let language = SymiPlusLanguage(localeIdentifier: locale)
        let cases: [(PurchaseState.Activity, SymiPlusMessages.Text)] = [
            (.failed(StoreError(.purchaseFailed, cause: "declined")), SymiPlusMessages.purchaseFailed),
            (.failed(StoreError(.unknownProduct, cause: "gone")), SymiPlusMessages.purchaseFailed),
            (.failed(StoreError(.syncFailed, cause: "offline")), SymiPlusMessages.restoreFailed),
            (.unverified(productId: "symi_plus_monthly"), SymiPlusMessages.unverified),
        ]
        for (activity, text) in cases {
            let screen = try screen(locale, loaded([Fixtures.monthly()], activity: activity))
            #expect(screen.status == .failed)
            #expect(screen.message == text(language))
            #expect(screen.offers.count == 1, "the user can try again")
            #expect(!(screen.message ?? "").contains("StoreKit") && !(screen.message ?? "").contains("declined"))
        }
    }

    @Test(arguments: locales)
    func restoreResults(locale: String) throws {
        let language = SymiPlusLanguage(localeIdentifier: locale)
        let nothing = try screen(locale, loaded([Fixtures.monthly()], activity: .restored(foundPurchases: false)))
        #expect(nothing.status == .nothingToRestore && nothing.message == SymiPlusMessages.nothingToRestore(language))
        let found = try screen(locale, loaded([Fixtures.monthly()], activity: .restored(foundPurchases: true),
                                              entitlements: [Fixtures.entitlement()]))
        #expect(found.status == .subscribed && found.message == SymiPlusMessages.subscribed(language))
    }

    @Test(arguments: locales)
    func alreadySubscribed(locale: String) throws {
        let screen = try screen(locale, loaded([Fixtures.monthly()], entitlements: [Fixtures.entitlement()]))
        #expect(screen.status == .subscribed)
        #expect(screen.message == SymiPlusMessages.subscribed(SymiPlusLanguage(localeIdentifier: locale)))
        #expect(screen.offers.isEmpty && screen.activationMessage == nil)
        #expect(!screen.restoreButton.isEmpty)
    }

    @Test(arguments: locales)
    func workingDisablesTheButtons(locale: String) throws {
        for activity in [PurchaseState.Activity.purchasing(productId: "symi_plus_monthly"), .restoring] {
            let screen = try screen(locale, loaded([Fixtures.monthly()], activity: activity))
            #expect(screen.status == .working && !screen.purchaseEnabled && screen.message == nil)
        }
    }

    @Test(arguments: locales)
    func priceChangeNoticeOnlyForAPendingIncreaseWhileItsFlagIsOn(locale: String) throws {
        let on = try Fixtures.production(setting: "subscriptionPriceIncreaseMessagingEnabled", to: true, locale: locale)
        let pending = Fixtures.decided(PurchaseState(
            offeredProductIds: ["symi_plus_monthly"], products: [Fixtures.monthly()], productsPhase: .loaded,
            entitlements: [Fixtures.entitlement()], entitlementsChecked: true,
            statuses: [Fixtures.status(.subscribed, Fixtures.entitlement(), Fixtures.renewal(priceIncrease: .pending))]))
        let screen = try screen(locale, pending, flags: on)
        #expect(screen.priceChangeNotice == SymiFlagValues(on).subscriptionPaidCopy.priceChangeNotice)
        #expect(screen.priceChangeNotice?.hasPrefix(locale == "de_DE" ? "Der Preis" : "The price") == true)
        #expect(try self.screen(locale, loaded([Fixtures.monthly()]), flags: on).priceChangeNotice == nil,
                "nobody without a subscription has an increase to decide on")
        #expect(try self.screen(locale, loaded([Fixtures.monthly()], entitlements: [Fixtures.entitlement()]), flags: on)
            .priceChangeNotice == nil, "a subscriber without a pending increase")
        #expect(try self.screen(locale, pending).priceChangeNotice == nil, "the flag is off in production")
        let monetizationOff = try Fixtures.modified(try Fixtures.document()) { flags in
            flags["subscriptionPriceIncreaseMessagingEnabled"] = ["type": "boolean", "default": true]
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        let off = SymiPlusScreen(flags: FlagSnapshot(document: monetizationOff, context: Fixtures.context(locale: locale)),
                                 purchases: pending)
        #expect(off.priceChangeNotice == nil)
    }

    @Test(arguments: locales)
    func aDocumentWithoutThePaidCopyKeepsItsScreenCopy(locale: String) throws {
        let older = try Fixtures.modified(try Fixtures.document()) { flags in
            flags["subscriptionPaidCopy"] = nil
            guard case .object(var copy)? = flags["subscriptionScreenCopy"], case .object(var value)? = copy["default"] else { return }
            value["headline"] = "Symi Plus (Server)"
            copy["default"] = .object(value)
            flags["subscriptionScreenCopy"] = .object(copy)
        }
        let flags = FlagSnapshot(document: older, context: Fixtures.context(locale: locale))
        let screen = SymiPlusScreen(flags: flags, purchases: loaded([Fixtures.monthly(eligible: false)]))
        #expect(screen.headline == (locale == "de_DE" ? "Symi Plus (Server)" : "Symi Plus"))
        #expect(screen.offers.map(\.buttonTitle) == [locale == "de_DE" ? "Für 2,99 €/Monat starten" : "Start for 2,99 €/month"])
    }
}
