import FlagClient
import FlagKit
import Foundation
import SymiPlus
import TestSupport
import Testing
@testable import SymiPlus

/// The app's whole offer path against the real `flagserver` holding a throw-away In-App Purchase key: the flag client
/// fetches the document whose `paywallProduct` arm names `symi_plus_monthly_499/winback_50`, the manager applies it for
/// a lapsed subscriber with the client as its signer, and the purchase hands the store a signature that verifies
/// (`openssl`) over Apple's payload. Only the App Store itself is scripted.
@MainActor
@Suite(.serialized) struct PaywallOfferServerTests {
    @Test func theFlagClientSignsTheArmsOfferForThePurchase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try OfferSigningKey(in: directory.url)
        let document = try Fixtures.modified(try Fixtures.document()) { flags in
            flags["paywallProduct"] = ["type": "string", "default": .string(PaywallOfferTests.arm)]
        }
        let production = String(decoding: document.jsonValue.canonicalBytes, as: UTF8.self)
        let server = try await offPool {
            try SeededFlagServer(directory: directory.url.appendingPathComponent("server"), flags: ["production": production],
                                 tokenName: "t", arguments: ["--log-level", "warning", "--loops", "1", "--appstore-offer-key",
                                                             key.privateKeyPath, "--appstore-offer-key-id", "SYMIKEY001",
                                                             "--appstore-bundle-id", "app.symi.journal"])
        }
        defer { server.stop() }
        let reader = try server.token(name: "app", role: "reader")
        let flags = FlagClient(configuration: FlagClientConfiguration(
            environment: "production", baseURL: server.baseURL, cacheDirectory: directory.url.appendingPathComponent("app"),
            installId: "5A1B0000-0000-4000-8000-00000000BEEF", readToken: reader))
        #expect(await flags.refresh().isSuccess)

        let clock = ManualClock(Date())
        let store = ScriptedStore(clock: clock)
        await store.setProducts(.success([PaywallChoiceTests.monthly, PaywallChoiceTests.yearly, PaywallOfferTests.monthly499]))
        await store.setStatuses([PaywallOfferTests.lapsed])
        let manager = PurchaseManager(store: store, clock: clock, offerSigner: flags, observesAtCreation: false)
        manager.apply(flags.snapshot)
        await manager.updatePurchasedProducts()
        await manager.loadProducts()
        #expect(manager.state.paywallOffer.applied(to: "symi_plus_monthly_499")?.offer == PaywallOfferTests.winback,
                "\(manager.state.paywallOffer)")

        await store.setPurchase(.success(.userCancelled))
        await manager.purchase(PaywallOfferTests.monthly499)
        let signed = try #require(await store.purchaseOffers.last ?? nil)
        #expect(signed.product == "symi_plus_monthly_499" && signed.offer == "winback_50" && signed.keyID == "SYMIKEY001")
        let payload = ["app.symi.journal", signed.keyID, signed.product, signed.offer, "", signed.nonce, String(signed.timestamp)]
            .joined(separator: "\u{2063}")
        let der = try #require(Data(base64Encoded: signed.signature))
        #expect(try key.verifies(der, over: payload, scratch: directory.url))
        #expect(try !key.verifies(der, over: payload.replacingOccurrences(of: "winback_50", with: "winback_40"), scratch: directory.url),
                "the check can fail")
    }
}
