import Foundation
import TestSupport
import Testing
@testable import SymiPlus

/// The retry after a failed store read: the backoff itself, and the purchase manager asking the store again on the
/// test clock (a kept decision must not outlive the store's answer for the rest of a session).
@MainActor
@Suite struct StoreRetryBackoffTests {
    static let day: TimeInterval = 86_400
    static let m2 = Fixtures.inAMonth.addingTimeInterval(30 * day)
    static let paid = Fixtures.entitlement(id: 2, original: 1, purchased: Fixtures.inAMonth, expires: m2)

    let clock = ManualClock()
    let store: ScriptedStore

    init() {
        store = ScriptedStore(clock: clock)
    }

    @Test func doublesFromThirtySecondsToFifteenMinutes() {
        var delays: [TimeInterval] = []
        var previous: TimeInterval?
        for _ in 0..<8 {
            let next = StoreRetryBackoff.delay(after: previous)
            delays.append(next)
            previous = next
        }
        #expect(delays == [30, 60, 120, 240, 480, 900, 900, 900])
    }

    func launched() async throws -> PurchaseManager {
        let manager = PurchaseManager(store: store, clock: clock)
        _ = try await waitUntil(manager, "launch entitlement check") { $0.entitlementsChecked }
        return manager
    }

    /// Waits until the clock's waiting sleeps are exactly `wakes` (the manager scheduled its next store check).
    func waitForWakes(_ wakes: [Date], _ what: String) async throws {
        let deadline = Date().addingTimeInterval(5)
        while clock.pendingWakes != wakes, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(clock.pendingWakes == wakes, "\(what): the next store checks")
    }

    /// Moves the clock to `date` and waits until the store was asked once more than before.
    func advanceAndAwaitCheck(to date: Date) async throws {
        let checks = await store.entitlementChecks
        clock.advance(to: date)
        let deadline = Date().addingTimeInterval(5)
        while await store.entitlementChecks == checks, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(await store.entitlementChecks == checks + 1, "the store was asked at \(date)")
    }

    /// The review's example: the grace period ends while the store fails, so the review keeps access. The retry asks
    /// again 30 seconds later, the store answers "billing retry, courtesy window over", and access ends.
    @Test func aGracePeriodThatEndedWhileTheStoreFailedEndsAtTheRetry() async throws {
        let graceEnd = Self.m2.addingTimeInterval(16 * Self.day)
        clock.advance(to: Self.m2.addingTimeInterval(3_600))
        await store.setEntitlements([Self.paid])
        await store.setStatuses([Fixtures.status(.inGracePeriod, Self.paid, Fixtures.renewal(graceUntil: graceEnd, retrying: true))])
        let manager = try await launched()
        #expect(manager.isPremiumEntitled)
        try await waitForWakes([graceEnd], "the grace period's end")
        await store.setFailing(true)
        try await advanceAndAwaitCheck(to: graceEnd)
        #expect(manager.isPremiumEntitled, "the store failed at the review: kept")
        #expect(manager.state.access.keptAfterStoreFailure)
        try await waitForWakes([graceEnd.addingTimeInterval(30)], "a retry after the failed review")
        await store.setFailing(false)
        await store.setStatuses([Fixtures.status(.inBillingRetryPeriod, Self.paid, Fixtures.renewal(graceUntil: graceEnd, retrying: true))])
        try await advanceAndAwaitCheck(to: graceEnd.addingTimeInterval(30))
        _ = try await waitUntil(manager, "the store's answer after the retry") { !$0.isPremiumEntitled }
        #expect(manager.state.access.billingIssue == .init(inGracePeriod: false, accessUntil: nil))
        try await waitForWakes([], "nothing left to check")
    }

    /// The store fails at launch (nobody known to be subscribed yet) and answers at the first retry: access follows.
    @Test func aStoreFailingAtLaunchIsAskedAgainAndItsAnswerGrantsAccess() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        await store.setStatuses([Fixtures.status(.subscribed)])
        await store.setFailing(true)
        let manager = PurchaseManager(store: store, clock: clock)
        try await waitForWakes([Fixtures.now.addingTimeInterval(30)], "a retry after the failed launch read")
        #expect(!manager.isPremiumEntitled)
        await store.setFailing(false)
        try await advanceAndAwaitCheck(to: Fixtures.now.addingTimeInterval(30))
        _ = try await waitUntil(manager, "access from the store's answer") { $0.isPremiumEntitled }
        try await waitForWakes([Fixtures.inAMonth], "only the period's end")
    }

    /// Failures in a row: 30 s, 60 s, ... up to 15 minutes between the reads, access kept throughout; then the store
    /// answers, no retry is left, and the next failure starts again at 30 s.
    @Test func repeatedFailuresBackOffNeverLowerAccessAndAnAnswerResetsTheBackoff() async throws {
        await store.setEntitlements([Fixtures.entitlement()])
        await store.setStatuses([Fixtures.status(.subscribed)])
        let manager = try await launched()
        #expect(manager.isPremiumEntitled)
        await store.setFailing(true)
        await manager.updatePurchasedProducts()
        var at = Fixtures.now
        for delay: TimeInterval in [30, 60, 120, 240, 480, 900, 900] {
            at = at.addingTimeInterval(delay)
            // The period's end (a month away) stays scheduled behind the retry; only the earlier one waits.
            try await waitForWakes([at], "after a failure, \(delay) s")
            try await advanceAndAwaitCheck(to: at)
            #expect(manager.isPremiumEntitled, "a failed retry takes nothing away")
        }
        try await waitForWakes([at.addingTimeInterval(900)], "capped at 15 minutes")
        await store.setFailing(false)
        try await advanceAndAwaitCheck(to: at.addingTimeInterval(900))
        try await waitForWakes([Fixtures.inAMonth], "answered: only the period's end")
        #expect(manager.isPremiumEntitled && !manager.state.access.keptAfterStoreFailure)
        at = at.addingTimeInterval(900 + 5)
        clock.advance(to: at)
        await store.setFailing(true)
        await manager.updatePurchasedProducts()
        try await waitForWakes([at.addingTimeInterval(30)], "the backoff starts again at 30 s")
    }

    /// A review due before the next retry comes first (and fails like any read, doubling the wait).
    @Test func theEarlierOfRetryAndReviewWins() async throws {
        let end = Fixtures.now.addingTimeInterval(100)
        await store.setEntitlements([Fixtures.entitlement(expires: end)])
        let manager = try await launched()
        await store.setFailing(true)
        await manager.updatePurchasedProducts()
        try await waitForWakes([Fixtures.now.addingTimeInterval(30)], "the first retry")
        try await advanceAndAwaitCheck(to: Fixtures.now.addingTimeInterval(30))
        try await waitForWakes([Fixtures.now.addingTimeInterval(90)], "the second retry, before the period's end")
        try await advanceAndAwaitCheck(to: Fixtures.now.addingTimeInterval(90))
        try await waitForWakes([end], "the period's end, before the third retry at 210 s")
        try await advanceAndAwaitCheck(to: end)
        #expect(manager.isPremiumEntitled, "the store failed at the review: kept")
        try await waitForWakes([end.addingTimeInterval(240)], "the fourth wait, 240 s")
    }
}
