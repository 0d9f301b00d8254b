import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The guards' job on what the refund tests do not reach (docs/guards.md, "How a guard is evaluated"): metrics that trip
/// on a fall against a floor, and rates per active subscription-hour against the previous week and a ceiling, each
/// with notifications through the real receiver, a real SQLite file and the job's stepped clock. Every input is chosen
/// so that its verdict is far from the per-look alpha (2.3 × 10⁻⁶ for 72 hours): the trip's hour is certain, and the
/// control population holds. Each test runs the trip and its control (`fall`/`spike` false: the same population
/// without the change).
@Suite struct GuardRunnerTests {
    /// A floor of 10 starts an hour. After the hour of publication (10 starts), none: the watched count stays 10 while
    /// the floor's mean grows by 10 an hour, so P(X ≤ 10) is 0.58, 0.011, 2.2 × 10⁻⁵ after 1, 2, 3 hours (held) and
    /// 1.6 × 10⁻⁸ after 4 (tripped). The control sells 10 an hour throughout: P(X ≤ 10h | 10h) ≥ 0.5.
    @Test(arguments: [true, false])
    func startsBelowAFloorTripAtTheFourthHour(fall: Bool) async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let created = try await harness.addGuard(
            #"{"version": 2, "rule": {"metric": "started", "baseline": "floor", "threshold": 10, "action": "notify"}}"#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        var subscription = 0
        for hour in 0..<5 {
            let starts = hour == 0 || !fall ? 10 : 0
            for index in 0..<starts {
                subscription += 1
                try await harness.post(harness.start(subscription: subscription, signed: harness.hourStart + Int64(hour) * GuardHarness.hour
                                                         + Int64(index) * 300_000 + 30_000))
            }
            harness.pass(hours: Int64(hour + 1))
            let record = try harness.server.store.guardRecord(id: id)
            let decision = record.lastDecision
            #expect(decision?["hours"] == .integer(Int64(hour + 1)) && decision?["count"] == .integer(fall ? 10 : Int64(10 * (hour + 1))),
                    "\(String(describing: decision))")
            if fall && hour == 3 {
                #expect(record.status == .tripped && decision?["verdict"] == "tripped", "hour \(hour + 1): \(String(describing: decision))")
                #expect(decision?["message"]?.stringValue?.hasPrefix("guard on started tripped: ") == true)
                #expect(record.action?["kind"] == "notify" && record.action?["outcome"] == "done")
                break
            }
            #expect(record.status == .watching && decision?["verdict"] == "held", "hour \(hour + 1): \(String(describing: decision))")
        }
        #expect(try harness.audit("guard.tripped", guard: id).count == (fall ? 1 : 0))
    }

    /// Intro conversions against a floor of 10 an hour, the same arithmetic as the starts above. 50 subscriptions
    /// started a free trial 10 days before publication (outside the 7 days the baseline reads: the job must read each
    /// subscription's past to know that its first paid renewal is a conversion). Ten convert in the hour of
    /// publication; then none (the fall), or ten an hour (the control).
    @Test(arguments: [true, false])
    func introConversionsBelowAFloorTripAtTheFourthHour(fall: Bool) async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        for subscription in 1...50 {
            var trial = harness.start(subscription: subscription, signed: harness.published - 10 * 24 * GuardHarness.hour
                                      + Int64(subscription) * 60_000)
            trial.transaction?.offerType = 1
            trial.transaction?.offerDiscountType = "FREE_TRIAL"
            try await harness.post(trial)
        }
        let created = try await harness.addGuard(
            #"{"version": 2, "rule": {"metric": "introConversions", "baseline": "floor", "threshold": 10, "action": "pauseSchedules"}}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        for hour in 0..<5 {
            let conversions = hour == 0 || !fall ? 10 : 0
            for index in 0..<conversions {
                var renewal = harness.start(subscription: hour * 10 + index + 1,
                                            signed: harness.hourStart + Int64(hour) * GuardHarness.hour + Int64(index) * 300_000 + 30_000)
                renewal.notificationType = "DID_RENEW"
                renewal.subtype = nil
                try await harness.post(renewal)
            }
            harness.pass(hours: Int64(hour + 1))
            let record = try harness.server.store.guardRecord(id: id)
            let decision = record.lastDecision
            #expect(decision?["count"] == .integer(fall ? 10 : Int64(10 * (hour + 1))), "hour \(hour + 1): \(String(describing: decision))")
            if fall && hour == 3 {
                #expect(record.status == .tripped && decision?["verdict"] == "tripped", "\(String(describing: decision))")
                #expect(record.action?["kind"] == "pauseSchedules" && record.action?["outcome"] == "done")
                break
            }
            #expect(record.status == .watching && decision?["verdict"] == "held", "hour \(hour + 1): \(String(describing: decision))")
        }
    }

    /// Refunds per active subscription-hour, against the previous week and against a ceiling of 0.01, both on one
    /// version. 200 subscriptions are active throughout (started 10 days before publication: the job reads their past);
    /// the previous week had one refund an hour (0.005 per active subscription-hour). 25 refunds in the hour after
    /// publication's: after 2 hours 25 counted over 400 subscription-hours, against 2 expected from the previous week
    /// (p ≈ 10⁻¹³) and 4 from the ceiling (p ≈ 10⁻¹²): both trip at the second hour, and hold at the first (none yet).
    /// The control has one refund an hour, as the week before.
    @Test(arguments: [true, false])
    func refundsPerActiveSubscriptionTripAtTheSecondHour(spike: Bool) async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let subscribed = (1...200).map { index in
            var record = NotificationRecord(notificationUUID: UUID().uuidString.lowercased(), notificationType: "SUBSCRIBED",
                                            subtype: "INITIAL_BUY", signedDate: harness.published - 10 * 24 * GuardHarness.hour + Int64(index),
                                            receivedAt: harness.published, environment: "Production")
            record.productID = "app.symi.plus.monthly"
            record.subscription = "active-\(index)"
            record.expiresDate = harness.published + 30 * 24 * GuardHarness.hour
            return record
        }
        _ = try harness.server.store.storeNotifications(subscribed)
        try harness.storeNormalRefunds(after: spike ? 0 : 4)
        let week = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "measure": "perActive", "action": "notify"}}"#)
        let ceiling = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "measure": "perActive", "baseline": "ceiling", "threshold": 0.01, "action": "notify"}}"#)
        let ids = try [week, ceiling].map { try #require(try $0.json()["guard"]?["id"]?.integerValue, "\($0.text)") }
        if spike { try await harness.postRefundSpike(count: 25, hoursAfter: 1) }
        // The spike trips both at the second hour; the control holds through four.
        for hours in 1...(spike ? 2 : 4) {
            harness.pass(hours: Int64(hours))
            for id in ids {
                let record = try harness.server.store.guardRecord(id: id)
                let decision = record.lastDecision
                let count = spike ? (hours == 2 ? 25 : 0) : hours
                #expect(decision?["count"] == .integer(Int64(count)), "guard \(id), hour \(hours): \(String(describing: decision))")
                // The exposure: the 200 active subscriptions in every watched hour.
                #expect(decision?["observed"]?.doubleValue.map { abs($0 - Double(count) / Double(200 * hours)) < 1e-12 } == true,
                        "guard \(id), hour \(hours): \(String(describing: decision))")
                if id == ids[0] {
                    #expect(decision?["baseline"]?.doubleValue.map { abs($0 - 0.005) < 1e-12 } == true, "\(String(describing: decision))")
                }
                if spike && hours == 2 {
                    #expect(record.status == .tripped && decision?["verdict"] == "tripped", "guard \(id): \(String(describing: decision))")
                } else {
                    #expect(record.status == .watching && decision?["verdict"] == "held", "guard \(id), hour \(hours): \(String(describing: decision))")
                }
            }
        }
        for id in ids { #expect(try harness.audit("guard.tripped", guard: id).count == (spike ? 1 : 0)) }
    }

    /// Auto-renew turned off per started subscription against a ceiling of 0.2. Ten starts an hour and one turned off
    /// (0.1 per start) hold; 26 turned off in the hour after publication's give 27 over 20 starts after 2 hours,
    /// against 4 expected (p ≈ 4 × 10⁻¹⁴): a trip at the second hour, held at the first (1 against 2).
    @Test(arguments: [true, false])
    func autoRenewOffPerStartAboveACeilingTripsAtTheSecondHour(spike: Bool) async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let created = try await harness.addGuard(
            #"{"version": 2, "rule": {"metric": "autoRenewOff", "measure": "perStarted", "baseline": "ceiling", "threshold": 0.2, "action": "notify"}}"#)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue, "\(created.text)")
        var subscription = 0
        for hour in 0..<4 {
            let hourStart = harness.hourStart + Int64(hour) * GuardHarness.hour
            for index in 0..<10 {
                subscription += 1
                try await harness.post(harness.start(subscription: subscription, signed: hourStart + Int64(index) * 300_000 + 30_000))
            }
            for index in 0..<(spike && hour == 1 ? 26 : 1) {
                var off = harness.start(subscription: subscription - index % 10, signed: hourStart + 3_000_000 + Int64(index) * 1_000)
                off.notificationType = "DID_CHANGE_RENEWAL_STATUS"
                off.subtype = "AUTO_RENEW_DISABLED"
                off.renewal?.autoRenewStatus = 0
                try await harness.post(off)
            }
            harness.pass(hours: Int64(hour + 1))
            let record = try harness.server.store.guardRecord(id: id)
            let decision = record.lastDecision
            let count = spike ? (hour == 0 ? 1 : 27) : hour + 1
            #expect(decision?["count"] == .integer(Int64(count)), "hour \(hour + 1): \(String(describing: decision))")
            #expect(decision?["observed"]?.doubleValue.map { abs($0 - Double(count) / Double(10 * (hour + 1))) < 1e-12 } == true,
                    "hour \(hour + 1): \(String(describing: decision))")
            if spike && hour == 1 {
                #expect(record.status == .tripped && decision?["verdict"] == "tripped", "\(String(describing: decision))")
                break
            }
            #expect(record.status == .watching && decision?["verdict"] == "held", "hour \(hour + 1): \(String(describing: decision))")
        }
    }
}

extension GuardHarness {
    /// A `SUBSCRIBED` `INITIAL_BUY` of subscription number `subscription` (its own original transaction), signed at
    /// `signed`, access for a month; change its type to make another notification of the same subscription.
    func start(subscription: Int, signed: Int64) -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        notification.signedDate = signed
        notification.transaction?.originalTransactionID = "3000000\(100_000 + subscription)"
        notification.transaction?.transactionID = "3000000\(100_000 + subscription)\(signed)"
        notification.transaction?.purchaseDate = signed
        notification.transaction?.expiresDate = signed + 30 * 24 * Self.hour
        notification.renewal?.originalTransactionID = notification.transaction?.originalTransactionID
        return notification
    }

    /// Posts `notification` through the receiver, signed by the trusted chain, as Apple does.
    func post(_ notification: AppStoreTestNotification) async throws {
        let response = try await server.postNotification(try fixture.body(notification))
        guard response.status == 200 else { throw TestFailure("receiver: \(response.status) \(response.text)") }
    }
}
