import AppStoreNotifications
import FlagKit
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The guards' cache of complete past hours (docs/guards.md, "The job"): each history is what one read of the real
/// SQLite store gives, a pass within an hour reads the open hour only, a late notification in a kept hour or an earlier
/// start makes it read the range again; and the job's decisions with the cache equal those of a runner without one.
@Suite struct GuardHistoryCacheTests {
    static let hour = GuardHarness.hour

    static func record(_ uuid: String, _ signedDate: Int64, environment: String = "Production") -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: uuid, notificationType: "REFUND", signedDate: signedDate,
                                        receivedAt: signedDate, environment: environment)
        record.productID = "app.symi.plus.monthly"
        return record
    }

    @Test func eachHistoryIsWhatOneReadGivesAndOnlyTheNewHoursAreRead() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let store = harness.server.store
        let base = harness.hourStart
        // Ten hours of records, two an hour, one of them Sandbox's.
        _ = try store.storeNotifications((0..<10).flatMap { hour in
            [Self.record("a\(hour)", base + Int64(hour) * Self.hour + 60_000),
             Self.record("b\(hour)", base + Int64(hour) * Self.hour + 120_000, environment: "Sandbox")]
        })
        var cache = GuardHistoryCache()
        func check(from: Int64, now: Int64, read expected: GuardHistoryCache.Read?, _ comment: Comment) throws {
            let end = OutcomeBucket.hour.ceil(now)
            let history = try cache.history(from: from, to: end, complete: OutcomeBucket.hour.floor(now), store: store)
            #expect(history == (try store.notifications(signedFrom: from, to: end)), comment)
            if let expected { #expect(cache.lastRead == expected, comment) }
        }
        let now = base + 5 * Self.hour + 600_000
        try check(from: base, now: now, read: .init(from: base, to: base + 6 * Self.hour, rows: 12), "the first read is all of it")
        try check(from: base, now: now + 600_000, read: .init(from: base + 5 * Self.hour, to: base + 6 * Self.hour, rows: 2),
                  "within the hour: the open hour only")
        // A record of the open hour arrives: read with it.
        _ = try store.storeNotifications([Self.record("c5", base + 5 * Self.hour + 900_000)])
        try check(from: base, now: now + 1_200_000, read: .init(from: base + 5 * Self.hour, to: base + 6 * Self.hour, rows: 3),
                  "the open hour's new record")
        // The next hour: the hour that completed and the open one.
        try check(from: base, now: base + 6 * Self.hour + 60_000, read: .init(from: base + 5 * Self.hour, to: base + 7 * Self.hour, rows: 5),
                  "the hour that completed since, and the open one")
        // A late notification signed in a kept hour (Apple's retry): the kept range no longer counts the same; read again.
        _ = try store.storeNotifications([Self.record("late", base + 2 * Self.hour + 30_000)])
        try check(from: base, now: base + 6 * Self.hour + 120_000, read: .init(from: base, to: base + 7 * Self.hour, rows: 16),
                  "a late record in a kept hour")
        // The start moves on (the retention's, a minute a minute) and older rows are deleted: still the open hour only.
        #expect(try store.deleteNotifications(signedBefore: base + Self.hour) == 2)
        try check(from: base + Self.hour, now: base + 6 * Self.hour + 180_000,
                  read: .init(from: base + 6 * Self.hour, to: base + 7 * Self.hour, rows: 2), "a later start")
        // An earlier start than kept (a new guard's publication − 7 days): read from there.
        try check(from: base - 3 * Self.hour, now: base + 6 * Self.hour + 240_000,
                  read: .init(from: base - 3 * Self.hour, to: base + 7 * Self.hour, rows: 14), "an earlier start")
        // A clock stepped back (a test's): read again rather than trust hours that are not complete at that time.
        try check(from: base, now: base + 3 * Self.hour + 60_000, read: .init(from: base, to: base + 4 * Self.hour, rows: 7),
                  "a clock stepped back")
        cache.clear()
        try check(from: base, now: base + 6 * Self.hour + 300_000, read: .init(from: base, to: base + 7 * Self.hour, rows: 14), "cleared")
    }

    /// Four guards (refunds per hour against the previous week, refunds per active subscription-hour against a
    /// ceiling, intro conversions and starts against floors) evaluated hour by hour and within hours by a runner that
    /// keeps its cache from look to look, as the job's does, and by a new runner at each look (every read from the
    /// store): the same decisions at every look, also after a late notification signed in an hour the cache keeps.
    /// Runners of the test's own, so that the service's scheduler passes do not move the cache between two looks.
    @Test func theDecisionsAreThoseOfARunnerWithoutTheCache() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        for subscription in 1...30 {
            var trial = harness.start(subscription: subscription, signed: harness.published - 10 * 24 * Self.hour + Int64(subscription) * 60_000)
            trial.transaction?.offerType = 1
            trial.transaction?.offerDiscountType = "FREE_TRIAL"
            try await harness.post(trial)
        }
        for rule in [#"{"metric": "refunds", "action": "notify"}"#,
                     #"{"metric": "refunds", "measure": "perActive", "baseline": "ceiling", "threshold": 0.01, "action": "notify"}"#,
                     #"{"metric": "introConversions", "baseline": "floor", "threshold": 2, "action": "notify"}"#,
                     #"{"metric": "started", "baseline": "floor", "threshold": 2, "action": "notify"}"#] {
            let created = try await harness.addGuard(#"{"version": 2, "rule": \#(rule)}"#)
            #expect(created.status == 201, "\(created.text)")
        }
        func runner(_ now: Int64) -> GuardRunner {
            GuardRunner(store: server.store, writer: server.service.writer, webhooks: server.service.webhooks, leadership: Leadership(),
                        logger: server.service.logger, metrics: GuardMetrics(), appStore: server.service.options.appStore, clock: { now })
        }
        let cached = runner(harness.published)
        var conversions = 0
        for hour in 0..<6 {
            // Each hour two conversions of the trials and three refunds; a start in every other hour.
            for index in 0..<2 where conversions < 30 {
                conversions += 1
                var renewal = harness.start(subscription: conversions, signed: harness.hourStart + Int64(hour) * Self.hour + Int64(index) * 600_000 + 1)
                renewal.notificationType = "DID_RENEW"
                renewal.subtype = nil
                try await harness.post(renewal)
            }
            if hour % 2 == 0 { try await harness.post(harness.start(subscription: 100 + hour, signed: harness.hourStart + Int64(hour) * Self.hour + 1_800_000)) }
            try await harness.postRefundSpike(count: 3, hoursAfter: Int64(hour))
            if hour == 4 {
                // Late: signed in the hour of publication, long kept by the cache.
                try await harness.postRefundSpike(count: 1, hoursAfter: 0)
            }
            for minutes: Int64 in [1, 30, 59] {
                let now = harness.hourStart + Int64(hour + 1) * Self.hour + minutes * 60_000
                let watching = try server.store.guards(statuses: [.watching])
                let withCache = try cached.evaluations(of: watching, now: now)
                let without = try runner(now).evaluations(of: watching, now: now)
                #expect(withCache.count == 4 && without.count == 4)
                for ((record, first), (_, second)) in zip(withCache, without) {
                    guard case .decided(let rule, let a) = first, case .decided(_, let b) = second else {
                        Issue.record("guard \(record.id): \(first) / \(second)")
                        continue
                    }
                    #expect(a.jsonValue(rule: rule, at: now) == b.jsonValue(rule: rule, at: now), "guard \(record.id), hour \(hour + 1) + \(minutes) min")
                    #expect(a.verdict == .held || a.verdict == .tripped, "guard \(record.id): \(a.jsonValue(rule: rule, at: now))")
                }
                let read = try #require(cached.historyCache.withLock { $0.lastRead })
                if minutes > 1 {
                    #expect(read.from == OutcomeBucket.hour.floor(now), "within the hour only the open hour is read: \(read)")
                } else if hour == 4 {
                    #expect(read.from < harness.hourStart, "the late notification makes it read all again: \(read)")
                } else if hour > 0 {
                    #expect(read.from == OutcomeBucket.hour.floor(now) - Self.hour, "the hour completed since and the open one: \(read)")
                }
            }
        }
        // The decisions counted what the cache kept and the late refund: the hour of publication has 3 + 1.
        let watching = try server.store.guards(statuses: [.watching])
        let evaluations = try cached.evaluations(of: watching, now: harness.hourStart + 6 * Self.hour + 60_000)
        guard case .decided(_, let refunds) = try #require(evaluations.first { $0.0.rule["metric"] == "refunds" && $0.0.rule["measure"] == "perHour" }).1 else {
            Issue.record("no decision")
            return
        }
        #expect(refunds.figures.count == 6 * 3 + 1)
    }
}
