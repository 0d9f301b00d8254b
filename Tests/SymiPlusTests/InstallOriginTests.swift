import Foundation
import TestSupport
import Testing
@testable import SymiPlus

/// The App Store's record of the install: unknown or unverified means no date.
@MainActor
@Suite struct InstallOriginTests {
    let clock = ManualClock()
    let store: ScriptedStore

    init() {
        store = ScriptedStore(clock: clock)
    }

    @Test func unknownCarriesNoDateByConstruction() {
        let unknown = InstallOrigin.unknown("unverified app transaction: invalidSignature")
        #expect(unknown.firstInstallDate == nil && unknown.originalAppVersion == nil && !unknown.isVerified)
        #expect(unknown.unknownReason == "unverified app transaction: invalidSignature")
        let verified = InstallOrigin.verified(firstInstallDate: Fixtures.now, originalAppVersion: "241")
        #expect(verified.firstInstallDate == Fixtures.now && verified.originalAppVersion == "241" && verified.isVerified)
        #expect(verified.unknownReason == nil)
    }

    @Test func theManagerReadsItAtLaunch() async throws {
        let first = Date(timeIntervalSince1970: 1_760_000_000)
        await store.setOrigin(.verified(firstInstallDate: first, originalAppVersion: "230"))
        let manager = PurchaseManager(store: store, clock: clock)
        let state = try await waitUntil(manager, "install origin") { $0.installOrigin != nil }
        #expect(state.installOrigin?.firstInstallDate == first)
    }

    @Test func anUnreadableOriginStaysUnknown() async throws {
        await store.setOrigin(.unknown("offline"))
        let manager = PurchaseManager(store: store, clock: clock)
        let state = try await waitUntil(manager, "install origin") { $0.installOrigin != nil }
        #expect(state.installOrigin?.firstInstallDate == nil)
    }

    @Test func unfinishedTransactionsAreFinishedAtLaunchAndCount() async throws {
        let left = Fixtures.entitlement(id: 5, original: 5)
        await store.setUnfinished([.verified(left), .unverified(productId: "symi_plus_yearly", reason: "invalidSignature")])
        await store.setFailing(true)
        let manager = PurchaseManager(store: store, clock: clock)
        let state = try await waitUntil(manager, "unfinished finished") { $0.isPremiumEntitled }
        #expect(await store.finished == [5], "verified ones finished, unverified ones left for StoreKit")
        #expect(await store.unfinished.count == 1)
        #expect(state.purchasedProductIDs == ["symi_plus_monthly"])
    }
}
