#if canImport(StoreKitTest)
import Foundation
import StoreKit
import StoreKitTest
import Testing
@testable import SymiPlus

/// ``StoreKitPurchaseStore`` against Xcode's local App Store (`SKTestSession` on `storekit/Symi.storekit`): expiry,
/// grace period, billing retry, refund, price increase consent and Ask to Buy, each read back through the adapter and
/// decided by ``SymiPlusAccess``.
///
/// NOT COMPILED ON THE LINUX MACHINES THAT BUILD THIS PACKAGE (the whole file is inside `#if canImport(StoreKitTest)`);
/// run it in Xcode (macOS 14 / iOS 17 simulator or later). docs/monetization.md lists it.
@Suite(.serialized) struct StoreKitPurchaseStoreTests {
    static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("storekit/Symi.storekit")
    static let monthly = "symi_plus_monthly"

    let store = StoreKitPurchaseStore()

    /// A clean test store: no transactions, no dialogs, the file's settings.
    func session() throws -> SKTestSession {
        let session = try SKTestSession(contentsOf: Self.configuration)
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
        return session
    }

    /// Polls `read` until `condition` holds (StoreKit Test applies changes asynchronously); the last value either way.
    func eventually<T>(_ read: () async throws -> T, _ condition: (T) -> Bool) async throws -> T {
        var value = try await read()
        for _ in 0..<50 where !condition(value) {
            try await Task.sleep(nanoseconds: 100_000_000)
            value = try await read()
        }
        return value
    }

    func decision(days: Int = 3) async throws -> AccessDecision {
        SymiPlusAccess.decide(AccessInput(entitlements: try await store.currentEntitlements(),
                                          statuses: try await store.subscriptionStatuses(), billingRetryAccessDays: days, now: Date()))
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func purchaseThenExpire() async throws {
        let session = try session()
        try await session.buyProduct(identifier: Self.monthly)
        #expect(try await decision().isEntitled)
        try session.expireSubscription(productIdentifier: Self.monthly)
        let statuses = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.state == .expired }
        #expect(statuses.map(\.state) == [.expired])
        #expect(try await store.currentEntitlements().isEmpty)
        #expect(try await !decision().isEntitled)
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func renewalFailsIntoTheGracePeriodAndAccessStays() async throws {
        let session = try session()
        session.billingGracePeriodIsEnabled = true
        session.shouldEnterBillingRetryOnRenewal = true
        try await session.buyProduct(identifier: Self.monthly)
        try session.forceRenewalOfSubscription(productIdentifier: Self.monthly)
        let statuses = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.state == .inGracePeriod }
        #expect(statuses.first?.renewal.gracePeriodExpirationDate != nil)
        let decision = try await decision()
        #expect(decision.isEntitled && decision.basis == .gracePeriod && decision.billingIssue?.inGracePeriod == true)
        #expect(try await store.currentEntitlements().map(\.productId) == [Self.monthly], "listed in grace")
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func billingRetryWithoutGraceThenResolved() async throws {
        let session = try session()
        session.billingGracePeriodIsEnabled = false
        session.shouldEnterBillingRetryOnRenewal = true
        try await session.buyProduct(identifier: Self.monthly)
        try session.forceRenewalOfSubscription(productIdentifier: Self.monthly)
        let statuses = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.state == .inBillingRetryPeriod }
        #expect(statuses.first?.renewal.isInBillingRetry == true)
        #expect(try await decision().billingIssue != nil)
        #expect(try await !decision(days: 0).isEntitled, "without the courtesy window, billing retry grants nothing")
        session.shouldEnterBillingRetryOnRenewal = false
        // The test environment's own transaction of the failed renewal (its identifiers are SKTestTransaction's).
        let failed = try #require(session.allTransactions().last { $0.productIdentifier == Self.monthly })
        try session.resolveIssueForTransaction(identifier: failed.identifier)
        _ = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.state == .subscribed }
        #expect(try await decision().isEntitled)
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func refundEndsAccess() async throws {
        let session = try session()
        let transaction = try await session.buyProduct(identifier: Self.monthly)
        try session.refundTransaction(identifier: Int(transaction.id))
        _ = try await eventually({ try await store.currentEntitlements() }) { $0.isEmpty }
        #expect(try await !decision().isEntitled)
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func priceIncreaseConsentPendingThenAgreed() async throws {
        let session = try session()
        let transaction = try await session.buyProduct(identifier: Self.monthly)
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(transaction.id))
        _ = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.renewal.priceIncreaseStatus == .pending }
        #expect(try await decision().priceIncreasePending)
        try session.consentToPriceIncreaseForTransaction(identifier: Int(transaction.id))
        _ = try await eventually({ try await store.subscriptionStatuses() }) { $0.first?.renewal.priceIncreaseStatus == .agreed }
        #expect(try await !decision().priceIncreasePending)
    }

    @available(iOS 17.0, macOS 14.0, *)
    @Test func askToBuyIsPendingUntilApproved() async throws {
        let session = try session()
        session.askToBuyEnabled = true
        #expect(try await store.purchase(Self.monthly) == .pending)
        #expect(try await store.currentEntitlements().isEmpty)
        let waiting = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        try session.approveAskToBuyTransaction(identifier: waiting.identifier)
        let listed = try await eventually({ try await store.currentEntitlements() }) { !$0.isEmpty }
        #expect(listed.map(\.productId) == [Self.monthly])
    }

    @Test func unfinishedTransactionsAreFinished() async throws {
        _ = try session()
        // Nothing is left unfinished after a clean reset; the call must come back (it drains a finite sequence).
        #expect(await store.finishUnfinishedTransactions().isEmpty)
    }
}
#endif
