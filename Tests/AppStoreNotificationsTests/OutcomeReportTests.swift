import AppStoreNotifications
import Testing

/// `OutcomeReport.compute` over hand-built histories whose every count is known.
@Suite struct OutcomeReportTests {
    /// 2026-12-01T00:00:00Z.
    static let day: Int64 = 1_796_083_200_000
    static let hour: Int64 = 3_600_000
    static let minute: Int64 = 60_000

    /// A notification of `subscription` signed at `at`.
    static func note(_ uuid: String, _ type: String, _ subtype: String? = nil, at: Int64, subscription: String? = nil,
                     product: String? = "monthly", offerType: Int? = nil, offerIdentifier: String? = nil,
                     discount: String? = nil, expires: Int64? = nil, grace: Int64? = nil) -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: uuid, notificationType: type, subtype: subtype, signedDate: at,
                                        receivedAt: at + 1, environment: "Production")
        record.subscription = subscription
        record.productID = product
        record.offerType = offerType
        record.offerIdentifier = offerIdentifier
        record.offerDiscountType = discount
        record.expiresDate = expires
        record.gracePeriodExpiresDate = grace
        return record
    }

    /// Counts with `metrics` one each (a metric listed twice: two).
    static func counts(_ metrics: [OutcomeMetric]) -> OutcomeCounts {
        var counts = OutcomeCounts()
        for metric in metrics { counts[metric] += 1 }
        return counts
    }

    /// Every notification type and subtype of the plan, and where it lands; types that count nothing count nothing.
    @Test(arguments: [
        ("SUBSCRIBED", "INITIAL_BUY", nil, nil, [OutcomeMetric.started, .initialBuys]),
        ("SUBSCRIBED", "INITIAL_BUY", 1, "PAY_AS_YOU_GO", [.started, .initialBuys, .introStarts]),
        ("SUBSCRIBED", "INITIAL_BUY", 1, "FREE_TRIAL", [.started, .initialBuys, .introStarts, .freeTrialStarts]),
        ("SUBSCRIBED", "INITIAL_BUY", 2, "PAY_UP_FRONT", [.started, .initialBuys]),
        ("SUBSCRIBED", "RESUBSCRIBE", nil, nil, [.started, .resubscribes]),
        ("SUBSCRIBED", "RESUBSCRIBE", 1, "FREE_TRIAL", [.started, .resubscribes, .introStarts, .freeTrialStarts]),
        ("DID_RENEW", nil, nil, nil, [.renewals]),
        ("DID_RENEW", "BILLING_RECOVERY", nil, nil, [.renewals, .recovered]),
        ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", nil, nil, [.autoRenewOff]),
        ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", nil, nil, [.autoRenewOn]),
        ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", nil, nil, [.billingProblems, .billingProblemsWithGrace]),
        ("DID_FAIL_TO_RENEW", nil, nil, nil, [.billingProblems, .billingProblemsWithoutGrace]),
        ("EXPIRED", "VOLUNTARY", nil, nil, [.expired, .expiredVoluntary]),
        ("EXPIRED", "BILLING_RETRY", nil, nil, [.expired, .expiredBillingRetry]),
        ("EXPIRED", "PRICE_INCREASE", nil, nil, [.expired, .expiredPriceIncrease]),
        ("EXPIRED", "PRODUCT_NOT_FOR_SALE", nil, nil, [.expired, .expiredProductNotForSale]),
        ("GRACE_PERIOD_EXPIRED", nil, nil, nil, [.expired, .gracePeriodExpired]),
        ("REFUND", nil, nil, nil, [.refunds]),
        ("REFUND_DECLINED", nil, nil, nil, [.refundsDeclined]),
        ("REFUND_REVERSED", nil, nil, nil, [.refundReversals]),
        ("REVOKE", nil, nil, nil, [.revocations]),
        ("PRICE_INCREASE", "ACCEPTED", nil, nil, [.priceIncreaseAccepted]),
        ("PRICE_INCREASE", "PENDING", nil, nil, [.priceIncreasePending]),
        ("OFFER_REDEEMED", "UPGRADE", 2, nil, [.offerRedemptions]),
        ("TEST", nil, nil, nil, [.tests]),
        ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", nil, nil, []),
        ("CONSUMPTION_REQUEST", nil, nil, nil, []),
    ] as [(String, String?, Int?, String?, [OutcomeMetric])])
    func everyTypeAndSubtypeLandsInItsMetrics(type: String, subtype: String?, offerType: Int?, discount: String?,
                                              metrics: [OutcomeMetric]) {
        let record = Self.note("n", type, subtype, at: Self.day + 5 * Self.minute, offerType: offerType, discount: discount)
        let report = OutcomeReport.compute(history: [record], from: Self.day, to: Self.day + Self.hour, bucket: .hour, product: nil)
        #expect(report.series == [Self.counts(metrics)])
        #expect(report.totals == Self.counts(metrics))
        #expect(OutcomeMetric.counted(for: record) == metrics)
    }

    @Test func aFreeTrialThatConvertsIsCountedOnceAndOneThatExpiresNever() {
        let day = Self.day, hour = Self.hour
        let history = [
            Self.note("a1", "SUBSCRIBED", "INITIAL_BUY", at: day + hour, subscription: "A", offerType: 1, discount: "FREE_TRIAL",
                      expires: day + 3 * hour),
            Self.note("b1", "SUBSCRIBED", "INITIAL_BUY", at: day + hour + 1, subscription: "B", offerType: 1, discount: "FREE_TRIAL",
                      expires: day + 3 * hour),
            Self.note("b2", "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: day + 2 * hour - 1, subscription: "B", offerType: 1,
                      discount: "FREE_TRIAL", expires: day + 3 * hour),
            Self.note("a2", "DID_RENEW", at: day + 3 * hour, subscription: "A", expires: day + 6 * hour),
            Self.note("b3", "EXPIRED", "VOLUNTARY", at: day + 3 * hour + 1, subscription: "B", offerType: 1, discount: "FREE_TRIAL",
                      expires: day + 3 * hour),
            Self.note("a3", "DID_RENEW", at: day + 6 * hour, subscription: "A", expires: day + 9 * hour),
        ]
        let report = OutcomeReport.compute(history: history, from: day, to: day + 8 * hour, bucket: .hour, product: nil)
        #expect(report.totals[.freeTrialStarts] == 2 && report.totals[.introStarts] == 2 && report.totals[.started] == 2)
        #expect(report.totals[.freeTrialConversions] == 1 && report.totals[.introConversions] == 1)
        #expect(report.totals[.renewals] == 2 && report.totals[.expiredVoluntary] == 1 && report.totals[.autoRenewOff] == 1)
        #expect(report.series.map { $0[.freeTrialConversions] } == [0, 0, 0, 1, 0, 0, 0, 0], "in the converting renewal's bucket")
        #expect(report.series.map { $0[.introConversions] } == [0, 0, 0, 1, 0, 0, 0, 0])
    }

    @Test func anIntroStartedBeforeTheRangeConvertsInsideItAndALaterRenewalIsNotCountedAgain() {
        let day = Self.day, hour = Self.hour
        let history = [
            // Paid intro (pay as you go) started the day before; its intro-priced renewal is no conversion.
            Self.note("c1", "SUBSCRIBED", "INITIAL_BUY", at: day - 20 * hour, subscription: "C", offerType: 1, discount: "PAY_AS_YOU_GO"),
            Self.note("c2", "DID_RENEW", at: day - 10 * hour, subscription: "C", offerType: 1, discount: "PAY_AS_YOU_GO"),
            Self.note("c3", "DID_RENEW", at: day + hour, subscription: "C"),
            Self.note("c4", "DID_RENEW", at: day + 2 * hour, subscription: "C"),
            // Converted before the range: not counted in it.
            Self.note("d1", "SUBSCRIBED", "INITIAL_BUY", at: day - 9 * hour, subscription: "D", offerType: 1, discount: "FREE_TRIAL"),
            Self.note("d2", "DID_RENEW", at: day - hour, subscription: "D"),
            Self.note("d3", "DID_RENEW", at: day + hour, subscription: "D"),
            // A resubscription with a new intro converts again.
            Self.note("d4", "SUBSCRIBED", "RESUBSCRIBE", at: day + 3 * hour, subscription: "D", offerType: 1, discount: "FREE_TRIAL"),
            Self.note("d5", "DID_RENEW", "BILLING_RECOVERY", at: day + 4 * hour, subscription: "D"),
            // A start without an intro: its renewals convert nothing.
            Self.note("e1", "SUBSCRIBED", "INITIAL_BUY", at: day + hour, subscription: "E"),
            Self.note("e2", "DID_RENEW", at: day + 2 * hour, subscription: "E"),
            // No subscription hash: nothing to follow.
            Self.note("f1", "SUBSCRIBED", "INITIAL_BUY", at: day + hour, offerType: 1),
            Self.note("f2", "DID_RENEW", at: day + 2 * hour),
        ]
        let report = OutcomeReport.compute(history: history, from: day, to: day + 6 * hour, bucket: .hour, product: nil)
        #expect(report.series.map { $0[.introConversions] } == [0, 1, 0, 0, 1, 0])
        #expect(report.series.map { $0[.freeTrialConversions] } == [0, 0, 0, 0, 1, 0])
        #expect(report.totals[.introStarts] == 2 && report.totals[.freeTrialStarts] == 1, "d4 and f1; c1 and d1 are before the range")
        #expect(report.totals[.renewals] == 6 && report.totals[.recovered] == 1)
    }

    @Test func activeIsAGaugeAtEachBucketsEnd() {
        let day = Self.day, hour = Self.hour, minute = Self.minute
        let history = [
            // Started before the range (the history carries it).
            Self.note("s2a", "SUBSCRIBED", "INITIAL_BUY", at: day - 24 * hour, subscription: "S2", expires: day + 10 * hour),
            // Expires mid-range with no later notification.
            Self.note("s1a", "SUBSCRIBED", "INITIAL_BUY", at: day + 10 * minute, subscription: "S1", expires: day + 150 * minute),
            // Billing problem with a grace period: access until the grace ends.
            Self.note("s3a", "SUBSCRIBED", "INITIAL_BUY", at: day + 5 * minute, subscription: "S3", expires: day + 90 * minute),
            Self.note("s3b", "DID_FAIL_TO_RENEW", "GRACE_PERIOD", at: day + 91 * minute, subscription: "S3", expires: day + 90 * minute,
                      grace: day + 210 * minute),
            // Billing problem without grace: access ends with the period.
            Self.note("s4a", "SUBSCRIBED", "INITIAL_BUY", at: day + 5 * minute, subscription: "S4", expires: day + 90 * minute),
            Self.note("s4b", "DID_FAIL_TO_RENEW", at: day + 91 * minute, subscription: "S4", expires: day + 90 * minute),
            // A refund ends access although the period runs on.
            Self.note("s2b", "REFUND", at: day + 90 * minute, subscription: "S2", expires: day + 10 * hour),
            // Not a subscription.
            Self.note("t", "TEST", at: day + 20 * minute, product: nil),
        ]
        let report = OutcomeReport.compute(history: history, from: day, to: day + 4 * hour, bucket: .hour, product: nil)
        #expect(report.series.map { $0[.active] } == [4, 2, 1, 0])
        #expect(report.totals[.active] == 0, "the gauge at the range's end, not a sum")
        #expect(report.groups.map { $0.series.map { $0[.active] } } == [[4, 2, 1, 0]])

        // A reversed refund gives access back; a revocation and an expiry take it.
        let more = history + [
            Self.note("s2c", "REFUND_REVERSED", at: day + 4 * hour + 1, subscription: "S2", expires: day + 10 * hour),
            Self.note("s5a", "SUBSCRIBED", "RESUBSCRIBE", at: day + 4 * hour + 2, subscription: "S5", expires: day + 30 * hour),
            Self.note("s5b", "REVOKE", at: day + 5 * hour + 2, subscription: "S5", expires: day + 30 * hour),
            Self.note("s6a", "SUBSCRIBED", "INITIAL_BUY", at: day + 4 * hour + 3, subscription: "S6", expires: day + 30 * hour),
            Self.note("s6b", "GRACE_PERIOD_EXPIRED", at: day + 6 * hour + 3, subscription: "S6", expires: day + 30 * hour),
        ]
        let later = OutcomeReport.compute(history: more, from: day + 4 * hour, to: day + 7 * hour, bucket: .hour, product: nil)
        #expect(later.series.map { $0[.active] } == [3, 2, 1])
        #expect(later.totals[.revocations] == 1 && later.totals[.refundReversals] == 1 && later.totals[.gracePeriodExpired] == 1)
    }

    /// A deterministic generator (SplitMix64), so a failing history can be rebuilt from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `active` straight from its definition: at each bucket's end, each subscription's latest notification signed
    /// before it; by group too. The report computes it as intervals instead; both must agree on any history.
    @Test(arguments: 1...40 as ClosedRange<UInt64>) func activeEqualsItsDefinitionOnRandomHistories(seed: UInt64) {
        var random = SplitMix(state: seed)
        let day = Self.day, hour = Self.hour
        let types: [(String, String?)] = [("SUBSCRIBED", "INITIAL_BUY"), ("SUBSCRIBED", "RESUBSCRIBE"), ("DID_RENEW", nil),
                                          ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"), ("DID_FAIL_TO_RENEW", nil), ("EXPIRED", "VOLUNTARY"),
                                          ("GRACE_PERIOD_EXPIRED", nil), ("REFUND", nil), ("REFUND_REVERSED", nil), ("REVOKE", nil),
                                          ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")]
        let history = (0..<300).map { index -> NotificationRecord in
            let at = day + Int64.random(in: -24 * hour ..< 30 * hour, using: &random)
            let (type, subtype) = types[Int.random(in: 0..<types.count, using: &random)]
            let expires: Int64? = Bool.random(using: &random) ? at + Int64.random(in: -hour ..< 20 * hour, using: &random) : nil
            let grace: Int64? = Int.random(in: 0..<4, using: &random) == 0 ? at + Int64.random(in: 0 ..< 10 * hour, using: &random) : nil
            return Self.note("r\(index)", type, subtype, at: at,
                             subscription: Int.random(in: 0..<10, using: &random) == 0 ? nil : "s\(Int.random(in: 0..<40, using: &random))",
                             product: ["monthly", "yearly", "weekly"][Int.random(in: 0..<3, using: &random)],
                             offerType: Bool.random(using: &random) ? 1 : nil, expires: expires, grace: grace)
        }.sorted { ($0.signedDate, $0.notificationUUID) < ($1.signedDate, $1.notificationUUID) }
        let product: String? = seed % 3 == 0 ? "yearly" : nil
        let to = day + 24 * hour + Int64(seed) * 1_000
        // What the caller reads: every record before `to` ceiled to the bucket, the end of the last bucket.
        let given = history.filter { $0.signedDate < OutcomeBucket.hour.ceil(to) }
        let report = OutcomeReport.compute(history: given, from: day + Int64(seed) * 60_000, to: to, bucket: .hour, product: product)

        var expected: [[String: Int]] = []
        for start in report.buckets {
            let end = start + hour
            var latest: [String: NotificationRecord] = [:]
            for record in given where record.signedDate < end { if let key = record.subscription { latest[key] = record } }
            var counts: [String: Int] = [:]
            for record in latest.values where product == nil || record.productID == product {
                let ended = ["EXPIRED", "GRACE_PERIOD_EXPIRED", "REFUND", "REVOKE"].contains(record.notificationType)
                guard !ended, (record.expiresDate ?? .min) > end || (record.gracePeriodExpiresDate ?? .min) > end else { continue }
                counts["", default: 0] += 1
                counts["\(record.productID ?? "-") \(record.offerType ?? 0)", default: 0] += 1
            }
            expected.append(counts)
        }
        #expect(report.series.map { $0[.active] } == expected.map { $0[""] ?? 0 })
        for group in report.groups {
            #expect(group.series.map { $0[.active] } == expected.map { $0["\(group.product) \(group.offerType ?? 0)"] ?? 0 },
                    "\(group.product) \(String(describing: group.offerType))")
        }
        #expect(expected.contains { ($0[""] ?? 0) > 0 }, "the history has active subscriptions to count")
    }

    @Test func hourAndDayBucketsFollowUTCBoundariesAndKeepEmptyBuckets() {
        let day = Self.day, hour = Self.hour
        let history = [
            Self.note("before", "DID_RENEW", at: day + hour - 1),
            Self.note("first", "DID_RENEW", at: day + hour),
            Self.note("second", "DID_RENEW", at: day + 2 * hour - 1),
            Self.note("last", "DID_RENEW", at: day + 3 * hour + 30 * Self.minute),
        ]
        let hours = OutcomeReport.compute(history: history, from: day + 90 * Self.minute, to: day + 3 * hour + 1, bucket: .hour,
                                          product: nil)
        #expect(hours.from == day + hour && hours.to == day + 4 * hour, "from floored, to ceiled")
        #expect(hours.buckets == [day + hour, day + 2 * hour, day + 3 * hour])
        #expect(hours.series.map { $0[.renewals] } == [2, 0, 1])
        #expect(hours.series[1] == OutcomeCounts(), "an empty bucket is there, all zeros")
        #expect(hours.totals[.renewals] == 3)

        let days = OutcomeReport.compute(history: history, from: day + 90 * Self.minute, to: day + 3 * hour + 1, bucket: .day,
                                         product: nil)
        #expect(days.from == day && days.to == day + 24 * hour && days.buckets == [day])
        #expect(days.series.map { $0[.renewals] } == [4])
        let week = OutcomeReport.compute(history: history, from: day - 2 * 24 * hour, to: day + 24 * hour, bucket: .day, product: nil)
        #expect(week.buckets == [day - 48 * hour, day - 24 * hour, day] && week.series.map { $0[.renewals] } == [0, 0, 4])

        let none = OutcomeReport.compute(history: history, from: day + hour, to: day + hour, bucket: .hour, product: nil)
        #expect(none.buckets.isEmpty && none.series.isEmpty && none.groups.isEmpty && none.totals == OutcomeCounts())
    }

    @Test func theProductFilterCountsOnlyThatProductsRecordsAndSubscriptions() {
        let day = Self.day, hour = Self.hour
        let history = [
            Self.note("m1", "SUBSCRIBED", "INITIAL_BUY", at: day + 1, subscription: "M", product: "monthly", expires: day + 9 * hour),
            Self.note("y1", "SUBSCRIBED", "INITIAL_BUY", at: day + 2, subscription: "Y", product: "yearly", offerType: 1,
                      discount: "FREE_TRIAL", expires: day + 9 * hour),
            // A crossgrade: the subscription's latest product decides where it is active.
            Self.note("m2", "DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: day + 3, subscription: "M", product: "yearly",
                      expires: day + 9 * hour),
            Self.note("y2", "DID_RENEW", at: day + 4, subscription: "Y", product: "yearly", expires: day + 20 * hour),
            Self.note("t", "TEST", at: day + 5, product: nil),
        ]
        let yearly = OutcomeReport.compute(history: history, from: day, to: day + hour, bucket: .hour, product: "yearly")
        #expect(yearly.product == "yearly")
        #expect(yearly.totals == Self.counts([.started, .initialBuys, .introStarts, .freeTrialStarts, .renewals, .introConversions,
                                              .freeTrialConversions, .active, .active]))
        let monthly = OutcomeReport.compute(history: history, from: day, to: day + hour, bucket: .hour, product: "monthly")
        #expect(monthly.totals == Self.counts([.started, .initialBuys]), "M is yearly's now; TEST has no product")
        #expect(monthly.groups.map(\.product) == ["monthly"])
        let all = OutcomeReport.compute(history: history, from: day, to: day + hour, bucket: .hour, product: nil)
        #expect(all.totals[.tests] == 1 && all.totals[.started] == 2 && all.totals[.active] == 2)
    }

    @Test func groupsAreByProductAndOfferInOrder() {
        let day = Self.day, hour = Self.hour
        let history = [
            Self.note("1", "SUBSCRIBED", "INITIAL_BUY", at: day + 1, product: "yearly", offerType: 3, offerIdentifier: "CODE"),
            Self.note("2", "SUBSCRIBED", "INITIAL_BUY", at: day + 2, product: "monthly", offerType: 2, offerIdentifier: "winback10"),
            Self.note("3", "SUBSCRIBED", "INITIAL_BUY", at: day + 3, product: "monthly", offerType: 1, discount: "FREE_TRIAL"),
            Self.note("4", "DID_RENEW", at: day + hour + 4, product: "monthly"),
            Self.note("5", "DID_RENEW", at: day + hour + 5, product: "monthly"),
            Self.note("6", "OFFER_REDEEMED", "RESUBSCRIBE", at: day + hour + 6, product: "monthly", offerType: 2,
                      offerIdentifier: "winback10"),
            Self.note("7", "SUBSCRIBED", "INITIAL_BUY", at: day + hour + 7, product: "monthly", offerType: 2, offerIdentifier: "A"),
            Self.note("8", "TEST", at: day + 8, product: nil),
        ]
        let report = OutcomeReport.compute(history: history, from: day, to: day + 2 * hour, bucket: .hour, product: nil)
        #expect(report.groups.map { "\($0.product) \($0.offerType.map(String.init) ?? "-") \($0.offerIdentifier ?? "-")" }
            == ["monthly - -", "monthly 1 -", "monthly 2 A", "monthly 2 winback10", "yearly 3 CODE"])
        #expect(report.groups.allSatisfy { $0.series.count == 2 })
        #expect(report.groups[0].series.map { $0[.renewals] } == [0, 2])
        #expect(report.groups[1].totals == Self.counts([.started, .initialBuys, .introStarts, .freeTrialStarts]))
        #expect(report.groups[3].series == [Self.counts([.started, .initialBuys]), Self.counts([.offerRedemptions])])
        #expect(report.groups[4].totals[.started] == 1)
        #expect(report.totals[.started] == 4 && report.totals[.tests] == 1)
        // The groups add up to the whole, but for what has no product.
        var sum = OutcomeCounts()
        for group in report.groups { for (metric, count) in group.totals.all { sum[metric] += count } }
        sum[.tests] += 1
        #expect(sum == report.totals)
    }

    @Test func anUnsortedHistoryCountsAsTheSortedOne() {
        let day = Self.day, hour = Self.hour
        let history = [
            Self.note("a1", "SUBSCRIBED", "INITIAL_BUY", at: day + 1, subscription: "A", offerType: 1, discount: "FREE_TRIAL",
                      expires: day + hour),
            Self.note("a2", "DID_RENEW", at: day + 2, subscription: "A", expires: day + 5 * hour),
            Self.note("a3", "EXPIRED", "BILLING_RETRY", at: day + 2 * hour, subscription: "A", expires: day + 5 * hour),
        ]
        let sorted = OutcomeReport.compute(history: history, from: day, to: day + 3 * hour, bucket: .hour, product: nil)
        let shuffled = OutcomeReport.compute(history: history.reversed(), from: day, to: day + 3 * hour, bucket: .hour, product: nil)
        #expect(sorted == shuffled)
        #expect(sorted.series.map { $0[.active] } == [1, 1, 0] && sorted.totals[.freeTrialConversions] == 1)
    }
}
