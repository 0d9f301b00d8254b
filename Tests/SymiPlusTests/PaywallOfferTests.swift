import FlagClient
import FlagKit
import Foundation
import SymiPlus
import TestSupport
import Testing
@testable import SymiPlus

/// A signer whose answers the test scripts: signatures with a new nonce per call, or a failure.
actor ScriptedSigner: PromotionalOfferSigning {
    /// What the next calls answer; `nil`: a signature.
    var failure: OfferSignatureError?
    /// Each call's product and offer.
    private(set) var requests: [String] = []
    private let clock: ManualClock

    init(clock: ManualClock, failure: OfferSignatureError? = nil) {
        self.clock = clock
        self.failure = failure
    }

    func fail(with error: OfferSignatureError?) { failure = error }

    func offerSignature(product: String, offer: String, appAccountToken: UUID?) async throws(OfferSignatureError)
        -> PromotionalOfferSignature {
        requests.append("\(product)/\(offer)")
        if let failure { throw failure }
        return PromotionalOfferSignature(product: product, offer: offer, keyID: "KEY1234567",
                                         nonce: UUID().uuidString.lowercased(),
                                         timestamp: PurchaseManager.milliseconds(clock.now()), signature: "MEUCIQDx")
    }
}

@MainActor
@Suite struct PaywallOfferTests {
    static let arm = "symi_plus_monthly_499/winback_50"
    static let winback = StoreProduct.PromotionalOffer(id: "winback_50", paymentMode: .payAsYouGo, displayPrice: "2,49 €",
                                                       period: .month, periodCount: 3)
    static let monthly499 = StoreProduct(id: "symi_plus_monthly_499", displayName: "Symi Plus monatlich",
                                         description: "Alle Premium-Funktionen", displayPrice: "4,99 €", subscriptionPeriod: .month,
                                         subscriptionGroupID: PaywallChoiceTests.group, promotionalOffers: [winback])
    static let lapsed = Fixtures.status(.expired, Fixtures.entitlement(purchased: Fixtures.now.addingTimeInterval(-90 * 86_400),
                                                                       expires: Fixtures.now.addingTimeInterval(-60 * 86_400)),
                                        Fixtures.renewal(willAutoRenew: false, expired: .autoRenewDisabled))

    /// Production with every install in the offer's arm.
    static func everyoneInTheArm() throws -> FlagSnapshot {
        let document = try Fixtures.modified(try Fixtures.document()) { flags in
            flags["paywallProduct"] = ["type": "string", "default": .string(arm)]
        }
        return FlagSnapshot(document: document, context: Fixtures.context())
    }

    /// A manager that has read `statuses` and loaded the products with the arm applied.
    static func manager(statuses: [SubscriptionStatus], signer: ScriptedSigner?, clock: ManualClock) async throws
        -> (PurchaseManager, ScriptedStore) {
        let store = ScriptedStore(clock: clock)
        await store.setProducts(.success([PaywallChoiceTests.monthly, PaywallChoiceTests.yearly, monthly499]))
        await store.setStatuses(statuses)
        let manager = PurchaseManager(store: store, clock: clock, offerSigner: signer, observesAtCreation: false)
        manager.apply(try everyoneInTheArm())
        await manager.updatePurchasedProducts()
        await manager.loadProducts()
        return (manager, store)
    }

    @Test func theNextStepFollowsTheChoiceTheStatusesAndTheSigner() {
        let shown = PaywallChoice.Outcome.shown(product: "p", offer: "o")
        let lapsed = [Self.lapsed]
        func next(_ outcome: PaywallChoice.Outcome, current: PaywallOffer = .none, checked: Bool = true,
                  statuses: [SubscriptionStatus] = lapsed, signer: Bool = true, at now: Int64 = 1_000_000_000) -> PaywallOffer.Step {
            PaywallOffer.next(outcome: outcome, current: current, statusesChecked: checked, statuses: statuses, hasSigner: signer,
                              nowMilliseconds: now)
        }
        #expect(next(.noExperiment) == .set(.none))
        #expect(next(.shown(product: "p", offer: nil)) == .set(.none))
        #expect(next(.fallback(.offerNotOffered)) == .set(.none))
        #expect(next(shown) == .sign(product: "p", offer: "o"))
        #expect(next(shown, checked: false) == .set(.notApplied(product: "p", offer: "o", reason: .statusUnknown)))
        #expect(next(shown, statuses: []) == .set(.notApplied(product: "p", offer: "o", reason: .newSubscriber)))
        #expect(next(shown, signer: false) == .set(.notApplied(product: "p", offer: "o", reason: .noSigner)))
        let terms = StoreProduct.PromotionalOffer(id: "o", paymentMode: .free, displayPrice: "0 €", period: .month)
        let signature = PromotionalOfferSignature(product: "p", offer: "o", keyID: "K", nonce: "n", timestamp: 1_000_000_000, signature: "AA==")
        let applied = PaywallOffer.applied(product: "p", offer: terms, signature: signature)
        #expect(next(shown, current: applied) == .set(applied), "a usable signature is kept")
        #expect(next(shown, current: applied, at: 1_000_000_000 + 23 * 3_600_000) == .sign(product: "p", offer: "o"),
                "within an hour of Apple's 24 hours: a new one")
        #expect(next(shown, current: .applied(product: "p", offer: terms, signature: nil)) == .sign(product: "p", offer: "o"))
        let refused = PaywallOffer.notApplied(product: "p", offer: "o", reason: .refusedByStore)
        #expect(next(shown, current: refused) == .set(refused), "the App Store's no holds for the run")
        #expect(next(shown, current: .notApplied(product: "p", offer: "o", reason: .signingFailed("503"))) == .sign(product: "p", offer: "o"))
    }

    @Test func aLapsedSubscriberSeesTheOfferAndBuysWithItsSignature() async throws {
        let clock = ManualClock(Fixtures.now)
        let signer = ScriptedSigner(clock: clock)
        let (manager, store) = try await Self.manager(statuses: [Self.lapsed], signer: signer, clock: clock)
        #expect(manager.state.paywallOutcome == .shown(product: "symi_plus_monthly_499", offer: "winback_50"))
        guard case .applied("symi_plus_monthly_499", Self.winback, let held?) = manager.state.paywallOffer else {
            Issue.record("not applied: \(manager.state.paywallOffer)")
            return
        }
        #expect(await signer.requests == ["symi_plus_monthly_499/winback_50"])

        let screen = SymiPlusScreen(flags: try Self.everyoneInTheArm(), purchases: manager.state)
        let row = try #require(screen.offers.first { $0.id == "symi_plus_monthly_499" })
        #expect(row.buttonTitle == "2,49 € pro Monat für 3 Monate, danach 4,99 €/Monat" && row.promotionalOfferId == "winback_50")
        #expect(!row.isFreeIntroduction)

        // The user cancels the sheet: the signature went with that purchase; the next one asks for a new nonce.
        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(Self.monthly499)
        #expect(await store.purchaseOffers.last == .some(held))
        #expect(manager.state.paywallOffer == .applied(product: "symi_plus_monthly_499", offer: Self.winback, signature: nil))
        let entitlement = Fixtures.entitlement("symi_plus_monthly_499", id: 7, original: 7)
        await store.setPurchase(.success(.verified(entitlement)))
        await manager.purchase(Self.monthly499)
        let second = try #require(await store.purchaseOffers.last ?? nil)
        #expect(second.offer == "winback_50" && second.nonce != held.nonce)
        #expect(manager.state.activity == .purchased(productId: "symi_plus_monthly_499") && manager.isPremiumEntitled)
        // Another product than the arm's is bought at its own terms.
        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(PaywallChoiceTests.yearly)
        #expect(await store.purchaseOffers.last == .some(nil))
    }

    @Test func aNewSubscriberSeesTheProductAtItsOwnTermsAndNothingIsSigned() async throws {
        let clock = ManualClock(Fixtures.now)
        let signer = ScriptedSigner(clock: clock)
        let (manager, store) = try await Self.manager(statuses: [], signer: signer, clock: clock)
        #expect(manager.state.paywallOffer == .notApplied(product: "symi_plus_monthly_499", offer: "winback_50", reason: .newSubscriber))
        #expect(await signer.requests.isEmpty)
        let screen = SymiPlusScreen(flags: try Self.everyoneInTheArm(), purchases: manager.state)
        let row = try #require(screen.offers.first { $0.id == "symi_plus_monthly_499" })
        #expect(row.promotionalOfferId == nil && row.buttonTitle.contains("4,99 €") && !row.buttonTitle.contains("2,49"))
        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(Self.monthly499)
        #expect(await store.purchaseOffers == [nil])

        // Without a signer (an app built without the flag service) the same.
        let (unsigned, _) = try await Self.manager(statuses: [Self.lapsed], signer: nil, clock: clock)
        #expect(unsigned.state.paywallOffer == .notApplied(product: "symi_plus_monthly_499", offer: "winback_50", reason: .noSigner))
    }

    @Test func aSignatureThatCannotBeHadLeavesTheProductAtItsOwnTerms() async throws {
        let clock = ManualClock(Fixtures.now)
        let refused = OfferSignatureError.httpStatus(404, code: "offer_not_in_experiment", body: "")
        let signer = ScriptedSigner(clock: clock, failure: refused)
        let (manager, store) = try await Self.manager(statuses: [Self.lapsed], signer: signer, clock: clock)
        #expect(manager.state.paywallOffer == .notApplied(product: "symi_plus_monthly_499", offer: "winback_50",
                                                          reason: .signingFailed(refused.description)))
        #expect(manager.products.map(\.id).contains("symi_plus_monthly_499"), "the arm's product is still shown")
        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(Self.monthly499)
        #expect(await store.purchaseOffers == [nil])

        // The server signs again: the next preparation (a new read of the statuses) applies the offer.
        await signer.fail(with: nil)
        await manager.updatePurchasedProducts()
        #expect(manager.state.paywallOffer.applied(to: "symi_plus_monthly_499")?.offer == Self.winback)

        // The signature grows old while the paywall stays open, and the server fails at the purchase: nothing is
        // bought, the failure says so, the offer is withdrawn.
        clock.advance(seconds: 23.5 * 3_600)
        await signer.fail(with: .transport(TransportError(kind: .timedOut, message: "no answer in 10 s", url: "https://flags.example")))
        await manager.purchase(Self.monthly499)
        #expect(await store.purchases.count == 1, "nothing more was bought")
        #expect(manager.state.activity == .failed(StoreError(.offerUnavailable, cause: OfferSignatureError.transport(TransportError(kind: .timedOut, message: "no answer in 10 s", url: "https://flags.example")).description)))
        #expect(manager.errorMessage == SymiPlusMessages.offerUnavailable(.german))
        #expect(SymiPlusScreen(flags: try Self.everyoneInTheArm(), purchases: manager.state).offers
            .first { $0.id == "symi_plus_monthly_499" }?.promotionalOfferId == nil)
    }

    @Test func anOfferTheAppStoreRefusesIsWithdrawnForTheRun() async throws {
        let clock = ManualClock(Fixtures.now)
        let signer = ScriptedSigner(clock: clock)
        let (manager, store) = try await Self.manager(statuses: [Self.lapsed], signer: signer, clock: clock)
        await store.setPurchase(.failure(StoreError(.offerRefused, cause: "ineligibleForOffer")))
        await manager.purchase(Self.monthly499)
        #expect(manager.state.paywallOffer == .notApplied(product: "symi_plus_monthly_499", offer: "winback_50", reason: .refusedByStore))
        #expect(manager.errorMessage == SymiPlusMessages.offerRefused(.german))
        await manager.updatePurchasedProducts()
        #expect(await signer.requests.count == 1, "the one made at preparation served the purchase; none after the refusal")
        #expect(manager.state.paywallOffer == .notApplied(product: "symi_plus_monthly_499", offer: "winback_50", reason: .refusedByStore))
        manager.dismissResult()
        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(Self.monthly499)
        #expect(await store.purchaseOffers.last == .some(nil), "at its own terms after the refusal")
    }

    @Test func theOfferButtonSaysTheTermsInBothLanguages() {
        let free = StoreProduct.PromotionalOffer(id: "f", paymentMode: .free, displayPrice: "0,00 €", period: StoreProduct.Period(value: 1, unit: .week), periodCount: 2)
        let upFront = StoreProduct.PromotionalOffer(id: "u", paymentMode: .payUpFront, displayPrice: "9,99 €", period: .month, periodCount: 6)
        #expect(SymiPlusMessages.offerButton(free, of: Self.monthly499, .german) == "2 Wochen kostenlos, danach 4,99 €/Monat")
        #expect(SymiPlusMessages.offerButton(free, of: Self.monthly499, .english) == "2 weeks free, then 4,99 €/month")
        #expect(SymiPlusMessages.offerButton(upFront, of: Self.monthly499, .german) == "9,99 € für 6 Monate, danach 4,99 €/Monat")
        #expect(SymiPlusMessages.offerButton(Self.winback, of: Self.monthly499, .english) == "2,49 € per month for 3 months, then 4,99 €/month")
        #expect(SymiPlusMessages.message(for: StoreError(.offerRefused, cause: "x")) == SymiPlusMessages.offerRefused)
    }
}
