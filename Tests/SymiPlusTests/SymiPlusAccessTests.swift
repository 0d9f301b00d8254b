import Foundation
import Testing
@testable import SymiPlus

/// The one access decision, as a table: each row is the verified facts of one moment of a subscription's life.
@Suite struct SymiPlusAccessTests {
    static let day: TimeInterval = 86_400
    static let now = Fixtures.now
    /// A period that ended yesterday (the renewal failed).
    static let lapsed = Fixtures.entitlement(id: 2, original: 1, purchased: now.addingTimeInterval(-30 * day),
                                             expires: now.addingTimeInterval(-day))
    static let running = Fixtures.entitlement()
    static let yearly = Fixtures.entitlement("symi_plus_yearly", id: 7, original: 1, purchased: now,
                                             expires: now.addingTimeInterval(365 * day))

    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var entitlements: [StoreEntitlement] = []
        var statuses: [SubscriptionStatus] = []
        var storeFailed = false
        var days = 3
        var earlier: AccessDecision?
        let expected: AccessDecision.Basis
        var check: @Sendable (AccessDecision) -> Bool = { _ in true }

        var testDescription: String { name }
        var input: AccessInput {
            AccessInput(entitlements: entitlements, statuses: statuses, storeFailed: storeFailed, billingRetryAccessDays: days,
                        now: SymiPlusAccessTests.now, earlier: earlier)
        }
    }

    static let rows: [Row] = [
        Row(name: "never subscribed", expected: .none) { $0.billingIssue == nil && $0.reviewAt == nil },
        Row(name: "free intro started", entitlements: [running], statuses: [Fixtures.status(.subscribed)], expected: .subscribed) {
            $0.periodEnd == Fixtures.inAMonth && $0.reviewAt == Fixtures.inAMonth && $0.transactionId == 1 && $0.endsAt == nil
        },
        Row(name: "listed without a status (statuses unknown)", entitlements: [running], expected: .subscribed),
        Row(name: "grace period, listed although its date has passed", entitlements: [lapsed],
            statuses: [Fixtures.status(.inGracePeriod, lapsed, Fixtures.renewal(graceUntil: now.addingTimeInterval(15 * day), retrying: true))],
            expected: .gracePeriod) {
            $0.billingIssue == .init(inGracePeriod: true, accessUntil: now.addingTimeInterval(15 * day))
                && $0.reviewAt == now.addingTimeInterval(15 * day)
        },
        Row(name: "grace period listed, statuses unknown", entitlements: [lapsed], expected: .subscribed) {
            $0.reviewAt == now.addingTimeInterval(day) && $0.periodEnd == nil && $0.endsAt == nil
        },
        Row(name: "grace period without a date", statuses: [Fixtures.status(.inGracePeriod, lapsed)], expected: .gracePeriod),
        Row(name: "grace period over, courtesy window over too", statuses: [Fixtures.status(
            .inBillingRetryPeriod, lapsed, Fixtures.renewal(graceUntil: now.addingTimeInterval(-60), retrying: true))], days: 0,
            expected: .none) { $0.billingIssue == .init(inGracePeriod: false, accessUntil: nil) },
        Row(name: "billing retry inside the courtesy window", statuses: [Fixtures.status(.inBillingRetryPeriod, lapsed)],
            expected: .billingRetryCourtesy) {
            $0.billingIssue == .init(inGracePeriod: false, accessUntil: now.addingTimeInterval(2 * day))
                && $0.reviewAt == now.addingTimeInterval(2 * day)
        },
        Row(name: "billing retry after the courtesy window", statuses: [Fixtures.status(.inBillingRetryPeriod, lapsed)], days: 1,
            expected: .none) { $0.billingIssue?.accessUntil == nil && $0.billingIssue != nil },
        Row(name: "billing retry with the window off", statuses: [Fixtures.status(.inBillingRetryPeriod, lapsed)], days: 0,
            expected: .none),
        Row(name: "recovered", entitlements: [running], statuses: [Fixtures.status(.subscribed)], expected: .subscribed) {
            $0.billingIssue == nil
        },
        Row(name: "price increase pending", statuses: [Fixtures.status(.subscribed, running, Fixtures.renewal(priceIncrease: .pending))],
            expected: .subscribed) { $0.priceIncreasePending },
        Row(name: "price increase agreed", statuses: [Fixtures.status(.subscribed, running, Fixtures.renewal(priceIncrease: .agreed))],
            expected: .subscribed) { !$0.priceIncreasePending },
        Row(name: "price increase declined: active until its end", statuses: [Fixtures.status(
            .subscribed, running, Fixtures.renewal(willAutoRenew: false, priceIncrease: .pending))],
            expected: .subscribed) { !$0.priceIncreasePending && $0.endsAt == Fixtures.inAMonth },
        Row(name: "price increase not accepted: expired", statuses: [Fixtures.status(
            .expired, lapsed, Fixtures.renewal(willAutoRenew: false, expired: .didNotConsentToPriceIncrease))], expected: .none),
        Row(name: "refunded mid-period", entitlements: [Fixtures.entitlement(revoked: now)],
            statuses: [Fixtures.status(.revoked, Fixtures.entitlement(revoked: now))], expected: .none),
        Row(name: "revoked status beats an older listing", entitlements: [running], statuses: [Fixtures.status(.revoked, running)],
            expected: .none),
        Row(name: "cancelled, active until its end", entitlements: [running],
            statuses: [Fixtures.status(.subscribed, running, Fixtures.renewal(willAutoRenew: false))], expected: .subscribed) {
            $0.endsAt == Fixtures.inAMonth && $0.switchesTo == nil
        },
        Row(name: "monthly to yearly at the next renewal", entitlements: [running],
            statuses: [Fixtures.status(.subscribed, running, Fixtures.renewal(to: "symi_plus_yearly"))], expected: .subscribed) {
            $0.switchesTo == "symi_plus_yearly" && $0.periodEnd == Fixtures.inAMonth && $0.productId == "symi_plus_monthly"
        },
        Row(name: "yearly after the switch", entitlements: [yearly],
            statuses: [Fixtures.status(.subscribed, yearly, Fixtures.renewal("symi_plus_yearly"))], expected: .subscribed) {
            $0.productId == "symi_plus_yearly" && $0.switchesTo == nil
        },
        Row(name: "a renewal listed after an expired status", entitlements: [running], statuses: [Fixtures.status(.expired, lapsed)],
            expected: .subscribed),
        Row(name: "family sharing: one expired, one subscribed", statuses: [
            Fixtures.status(.expired, Fixtures.entitlement(id: 8, original: 8, expires: now.addingTimeInterval(-day))),
            Fixtures.status(.subscribed)], expected: .subscribed),
        Row(name: "a product outside the catalogue grants nothing", entitlements: [Fixtures.entitlement("tip_jar_small")],
            statuses: [Fixtures.status(.subscribed, Fixtures.entitlement("tip_jar_small"))], expected: .none),
        Row(name: "store failing keeps what was decided earlier", storeFailed: true,
            earlier: AccessDecision(isEntitled: true, basis: .subscribed, productId: "symi_plus_monthly"), expected: .subscribed) {
            $0.keptAfterStoreFailure
        },
        Row(name: "store failing with nothing earlier grants nothing", storeFailed: true, expected: .none),
        Row(name: "store failing while the facts still grant more", entitlements: [running], statuses: [Fixtures.status(.subscribed)],
            storeFailed: true, earlier: .notEntitled, expected: .subscribed) { !$0.keptAfterStoreFailure },
        Row(name: "the store's own answer may take access away", earlier: AccessDecision(isEntitled: true, basis: .subscribed),
            expected: .none),
    ]

    @Test(arguments: rows)
    func decide(row: Row) {
        let decision = SymiPlusAccess.decide(row.input)
        #expect(decision.basis == row.expected)
        #expect(decision.isEntitled == (row.expected != .none))
        #expect(row.check(decision), "\(decision)")
    }

    /// A failure never gives less than the decision before it, whatever the facts and the time.
    @Test(arguments: rows)
    func aFailureNeverTakesAccessAway(row: Row) {
        let earlier = SymiPlusAccess.decide(row.input)
        for later in [0, Self.day, 40 * Self.day, 400 * Self.day] {
            var input = row.input
            input.earlier = earlier
            input.storeFailed = true
            input.now = Self.now.addingTimeInterval(later)
            #expect(SymiPlusAccess.decide(input).isEntitled || !earlier.isEntitled)
        }
    }
}
