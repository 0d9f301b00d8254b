import FlagClient
import Foundation
import SymiSchema
import TestSupport
import Testing
@testable import SymiPlus

/// Settings section, start-screen card, and the premium gate; the brief's "App bleibt aktuell ohne Kauf vollständig
/// nutzbar" checked on real documents.
@Suite struct SymiPlusEntryPointsTests {
    static let subscribed = Fixtures.decided(PurchaseState(offeredProductIds: ["symi_plus_monthly"], products: [Fixtures.monthly()],
                                                           productsPhase: .loaded, entitlements: [Fixtures.entitlement()],
                                                           entitlementsChecked: true))
    static let notSubscribed = PurchaseState(offeredProductIds: ["symi_plus_monthly"], products: [Fixtures.monthly()],
                                             productsPhase: .loaded, entitlementsChecked: true)
    /// The store failing at everything: no products, no entitlement check answered, the last action failed.
    static let storeDown = PurchaseState(offeredProductIds: ["symi_plus_monthly"],
                                         productsPhase: .unavailable(StoreError(.productsUnavailable, cause: "offline")),
                                         activity: .failed(StoreError(.syncFailed, cause: "offline")))
    static let features = ["pdfExport", "advancedInsights", "longTermComparisons", "moreExportFormats", "medicationAnalysis",
                           "doctorReportTemplates", "journal", "reminders"]

    @Test func settingsSectionOnlyWhileMonetizationIsEnabled() throws {
        let entry = SymiPlusEntryPoints(flags: try Fixtures.production(), purchases: Self.notSubscribed)
        #expect(entry.settingsSection == .init(title: "Symi Plus", detail: "Für kurze Zeit kostenlos"))
        let english = SymiPlusEntryPoints(flags: try Fixtures.production(locale: "en_GB"), purchases: Self.subscribed)
        #expect(english.settingsSection == .init(title: "Symi Plus", detail: "Active"))
        let off = SymiPlusEntryPoints(flags: try Fixtures.production(setting: "monetizationEnabled", to: false), purchases: Self.notSubscribed)
        #expect(off.settingsSection == nil && off.startScreenCard == nil)
    }

    @Test func startScreenCardFollowsItsFlags() throws {
        let flags = try Fixtures.production()
        let card = SymiPlusEntryPoints(flags: flags, purchases: Self.notSubscribed).startScreenCard
        #expect(card == .init(title: "Symi Plus", message: "Symi ist aktuell für kurze Zeit kostenlos."))
        let english = SymiPlusEntryPoints(flags: try Fixtures.production(locale: "en_US"), purchases: PurchaseState()).startScreenCard
        #expect(english?.message == "Symi is free for a limited time.", "shown before the products are known")
        let bannerOff = try Fixtures.production(setting: "showIntroFreeSubscriptionBanner", to: false)
        #expect(SymiPlusEntryPoints(flags: bannerOff, purchases: Self.notSubscribed).startScreenCard == nil)
    }

    @Test func noCardForSubscribersOrWhenNoFreeOfferApplies() throws {
        let flags = try Fixtures.production()
        #expect(SymiPlusEntryPoints(flags: flags, purchases: Self.subscribed).startScreenCard == nil)
        var used = Self.notSubscribed
        used.products = [Fixtures.monthly(eligible: false)]
        #expect(SymiPlusEntryPoints(flags: flags, purchases: used).startScreenCard == nil)
        #expect(SymiPlusEntryPoints(flags: flags, purchases: Self.storeDown).startScreenCard != nil,
                "a store failure hides nothing the flags show")
    }

    @Test func todayEveryFeatureIsOpenToEveryone() throws {
        for locale in ["de_DE", "en_US"] {
            let flags = try Fixtures.production(locale: locale)
            #expect(!SymiFlagValues(flags).premiumFeaturesLocked)
            for state in [Self.notSubscribed, Self.subscribed, Self.storeDown, PurchaseState()] {
                let entry = SymiPlusEntryPoints(flags: flags, purchases: state)
                for feature in Self.features { #expect(entry.isAvailable(feature), "\(feature)") }
            }
        }
    }

    @Test func onceLockedOnlySubscribersGetPremiumFeatures() throws {
        let flags = try Fixtures.locked()
        #expect(SymiFlagValues(flags).premiumFeaturesLocked)
        let subscriber = SymiPlusEntryPoints(flags: flags, purchases: Self.subscribed)
        let other = SymiPlusEntryPoints(flags: flags, purchases: Self.notSubscribed)
        for feature in Self.features {
            #expect(subscriber.isAvailable(feature))
            #expect(other.isAvailable(feature) == !SymiFlagValues(flags).premiumFeatures.contains(feature), "\(feature)")
        }
        #expect(!other.isAvailable("pdfExport") && other.isAvailable("journal"))
    }

    @Test func internalTestersSeeTheGateOnProduction() throws {
        let tester = FlagSnapshot(document: try Fixtures.document(),
                                  context: Fixtures.context(installId: "9F1C2D7E-0000-4000-8000-000000000001"))
        #expect(SymiFlagValues(tester).premiumFeaturesLocked)
        #expect(!SymiPlusEntryPoints(flags: tester, purchases: Self.notSubscribed).isAvailable("pdfExport"))
        #expect(SymiPlusEntryPoints(flags: tester, purchases: Self.subscribed).isAvailable("pdfExport"))
    }

    @MainActor
    @Test func aStoreThatFailsEntirelyLocksNothingThatWasOpen() async throws {
        let clock = ManualClock()
        let store = ScriptedStore(clock: clock)
        await store.setProducts(.failure(StoreError(.productsUnavailable, cause: "offline")))
        await store.setEntitlementsError(StoreError(.entitlementsUnavailable, cause: "offline"))
        await store.setPurchase(.failure(StoreError(.purchaseFailed, cause: "offline")))
        await store.setSync(.failure(StoreError(.syncFailed, cause: "offline")))
        let manager = PurchaseManager(store: store, clock: clock)
        let flags = try Fixtures.production()
        manager.apply(flags)
        await manager.loadProducts()
        await manager.purchase(Fixtures.monthly())
        await manager.restorePurchases()
        await manager.updatePurchasedProducts()
        #expect(!manager.isPremiumEntitled)
        let failing = SymiPlusEntryPoints(flags: flags, purchases: manager.state)
        let healthy = SymiPlusEntryPoints(flags: flags, purchases: Self.notSubscribed)
        for feature in Self.features {
            #expect(failing.isAvailable(feature) == healthy.isAvailable(feature), "\(feature)")
            #expect(failing.isAvailable(feature))
        }
        #expect(failing.settingsSection != nil)
        let screen = SymiPlusScreen(flags: flags, purchases: manager.state)
        #expect(screen.status == .failed && screen.message != nil)
    }

    @MainActor
    @Test func safeDefaultsWithAFailingStoreLockNothing() async throws {
        let flags = FlagSnapshot(document: nil, safeDefaults: SymiSafeDefaults.document, context: Fixtures.context())
        let entry = SymiPlusEntryPoints(flags: flags, purchases: Self.storeDown)
        for feature in Self.features { #expect(entry.isAvailable(feature)) }
    }

    /// A subscriber whose renewal failed yesterday, in Apple's billing retry, inside the courtesy window.
    static func retrying() -> PurchaseState {
        let lapsed = Fixtures.entitlement(id: 2, original: 1, purchased: Fixtures.now.addingTimeInterval(-30 * 86_400),
                                          expires: Fixtures.now.addingTimeInterval(-86_400))
        return Fixtures.decided(PurchaseState(offeredProductIds: ["symi_plus_monthly"], products: [Fixtures.monthly()],
                                              productsPhase: .loaded, entitlementsChecked: true,
                                              statuses: [Fixtures.status(.inBillingRetryPeriod, lapsed)]))
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aFailedRenewalGetsACalmCardAndTheSettingsRowSaysSo(locale: String) throws {
        let german = locale == "de_DE"
        let utc = TimeZone(identifier: "UTC") ?? .current
        let entry = SymiPlusEntryPoints(flags: try Fixtures.production(locale: locale), purchases: Self.retrying(), timeZone: utc)
        #expect(entry.isPremiumEntitled, "the courtesy window keeps access")
        #expect(entry.settingsSection?.detail == (german ? "Zahlung prüfen" : "Check payment"))
        #expect(entry.billingIssueCard?.message.contains(german ? "bis zum 17. Januar 2027" : "until January 17, 2027") == true)
        let bannerOff = try Fixtures.production(setting: "showIntroFreeSubscriptionBanner", to: false, locale: locale)
        #expect(SymiPlusEntryPoints(flags: bannerOff, purchases: Self.retrying()).billingIssueCard != nil,
                "about a subscription, not an offer")
        let off = try Fixtures.production(setting: "monetizationEnabled", to: false, locale: locale)
        #expect(SymiPlusEntryPoints(flags: off, purchases: Self.retrying()).billingIssueCard == nil)
        #expect(SymiPlusEntryPoints(flags: try Fixtures.production(locale: locale), purchases: Self.subscribed).billingIssueCard == nil)
    }

    @Test(arguments: ["de_DE", "en_US"])
    func aCancelledSubscriptionShowsItsEndInTheSettings(locale: String) throws {
        let cancelled = Fixtures.decided(PurchaseState(
            entitlements: [Fixtures.entitlement()], entitlementsChecked: true,
            statuses: [Fixtures.status(.subscribed, Fixtures.entitlement(), Fixtures.renewal(willAutoRenew: false))]))
        let entry = SymiPlusEntryPoints(flags: try Fixtures.production(locale: locale), purchases: cancelled,
                                        timeZone: TimeZone(identifier: "UTC") ?? .current)
        #expect(entry.settingsSection?.detail == (locale == "de_DE" ? "Aktiv bis 14. Februar 2027" : "Active until February 14, 2027"))
    }
}
