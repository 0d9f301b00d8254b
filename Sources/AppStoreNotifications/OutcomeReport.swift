/// The outcomes of a time range: what the App Store notifications say happened, per UTC hour or day, in total and
/// by product and offer (docs/appstore.md, "Outcomes: what each count means"). Pure computation over stored
/// records: the store reads them, `compute` counts.
public struct OutcomeReport: Sendable, Equatable {
    /// The first bucket's start: the requested `from` floored to the bucket.
    public var from: Int64
    /// The end of the last bucket: the requested `to` ceiled to the bucket.
    public var to: Int64
    /// Hours or days.
    public var bucket: OutcomeBucket
    /// Only this product's records were counted; nil: every record.
    public var product: String?
    /// Each bucket's start (ms since 1970, UTC), every bucket of [`from`, `to`), also those with nothing in them.
    public var buckets: [Int64]
    /// One per bucket.
    public var series: [OutcomeCounts]
    /// By product and offer, ordered by product (byte order), offer type and identifier (none first): every group
    /// with a record in the range or a subscription active at a bucket's end. Records without a product (`TEST`)
    /// are in `series` and `totals` only.
    public var groups: [OutcomeGroup]
    /// The sum of `series`, but `active` is the gauge at the end of the range (the last bucket's).
    public var totals: OutcomeCounts

    /// Counts `history` over [`from` floored, `to` ceiled) in `bucket`s.
    ///
    /// `history` is every record signed before the end of the last bucket (`to` ceiled: `bucket.ceil(to)`), in
    /// `signedDate` order (the store's order; it is sorted here when it is not): the records before `from` count
    /// nothing themselves but give each subscription its state, which the conversions and `active` need. A count
    /// lands in the bucket of the record's `signedDate`, under its `productID` and offer; with `product`, only that
    /// product's records count. The report holds an `OutcomeCounts` per bucket and group: the caller bounds the
    /// range's number of buckets.
    ///
    /// - The conversions follow each subscription (its `subscription` hash) through the whole history: a start
    ///   with `offerType` 1 makes its next `DID_RENEW` without `offerType` 1 a conversion (a free trial's also a
    ///   free-trial conversion), counted in that renewal's bucket; later renewals are not, until the next intro start.
    /// - `active` at a bucket's end: the subscriptions whose latest notification signed before that end is not
    ///   `EXPIRED`, `GRACE_PERIOD_EXPIRED`, `REFUND` or `REVOKE` and whose `expiresDate` or
    ///   `gracePeriodExpiresDate` is after that end; counted under that latest notification's product and offer.
    ///
    /// The work is one pass over `history`: `active` is kept as intervals of buckets per subscription (opened by its
    /// latest notification, closed by its end of access or its next notification), summed once at the end, so the
    /// cost does not grow with subscriptions × buckets.
    public static func compute(history: [NotificationRecord], from: Int64, to: Int64, bucket: OutcomeBucket,
                               product: String?) -> OutcomeReport {
        let start = bucket.floor(from)
        let end = max(start, bucket.ceil(to))
        let buckets = Array(stride(from: start, to: end, by: Int(bucket.milliseconds)))
        let records = isOrdered(history) ? history
            : history.sorted { ($0.signedDate, $0.notificationUUID) < ($1.signedDate, $1.notificationUUID) }
        var counting = Counting(buckets: buckets.count)
        var subscriptions: [String: SubscriptionState] = [:]
        var next = 0
        // Records before the range: state only.
        while next < records.count, records[next].signedDate < start {
            _ = follow(records[next], &subscriptions)
            next += 1
        }
        let counts = { (state: SubscriptionState) in product == nil || state.latest.productID == product }
        // `active` as intervals of buckets: a subscription's latest notification counts it from the bucket it arrived
        // in (the first for those before the range) until its access ends or a newer notification replaces it.
        for state in subscriptions.values where counts(state) {
            counting.openActive(state, from: 0, stop: activeStop(state, start: start, bucket: bucket, buckets: buckets.count))
        }
        for (index, bucketStart) in buckets.enumerated() {
            let bucketEnd = bucketStart + bucket.milliseconds
            while next < records.count, records[next].signedDate < bucketEnd {
                let record = records[next]
                next += 1
                if let key = record.subscription, let old = subscriptions[key], counts(old) {
                    counting.closeActive(old, at: index, stop: activeStop(old, start: start, bucket: bucket, buckets: buckets.count))
                }
                var metrics = OutcomeMetric.counted(for: record)
                metrics += follow(record, &subscriptions)
                if let key = record.subscription, let new = subscriptions[key], counts(new) {
                    counting.openActive(new, from: index, stop: activeStop(new, start: start, bucket: bucket, buckets: buckets.count))
                }
                guard product == nil || record.productID == product, !metrics.isEmpty else { continue }
                counting.add(metrics, bucket: index, group: OutcomeGroupKey(record))
            }
        }
        counting.finishActive()
        return OutcomeReport(from: start, to: end, bucket: bucket, product: product, buckets: buckets, series: counting.series,
                             groups: counting.groups(), totals: Counting.totals(counting.series))
    }

    /// Whether `records` are in (`signedDate`, `notificationUUID`) order already.
    private static func isOrdered(_ records: [NotificationRecord]) -> Bool {
        zip(records, records.dropFirst()).allSatisfy { $0.signedDate <= $1.signedDate }
    }

    /// The first bucket at whose end `state`'s latest notification no longer gives access: 0 after `EXPIRED`,
    /// `GRACE_PERIOD_EXPIRED`, `REFUND` or `REVOKE`; otherwise the first bucket whose end is not before its
    /// `expiresDate` or `gracePeriodExpiresDate` (whichever is later), at most `buckets`.
    private static func activeStop(_ state: SubscriptionState, start: Int64, bucket: OutcomeBucket, buckets: Int) -> Int {
        guard !OutcomeMetric.accessEndingTypes.contains(state.latest.notificationType) else { return 0 }
        let accessEnd = max(state.latest.expiresDate ?? .min, state.latest.gracePeriodExpiresDate ?? .min)
        let (offset, overflow) = accessEnd.subtractingReportingOverflow(start)
        if overflow { return accessEnd > start ? buckets : 0 }
        guard offset > 0 else { return 0 }
        // Bucket j ends at start + (j + 1) * size: access outlasts it while that is before accessEnd.
        let size = bucket.milliseconds
        let outlasted = offset / size + (offset % size == 0 ? 0 : 1) - 1
        return outlasted >= Int64(buckets) ? buckets : Int(outlasted)
    }

    /// Updates the state of `record`'s subscription; returns the conversions it makes.
    private static func follow(_ record: NotificationRecord, _ subscriptions: inout [String: SubscriptionState]) -> [OutcomeMetric] {
        guard let subscription = record.subscription else { return [] }
        var state = subscriptions[subscription] ?? SubscriptionState(latest: record)
        state.latest = record
        var conversions: [OutcomeMetric] = []
        if OutcomeMetric.isStart(record) {
            state.pendingIntroIsFreeTrial = record.offerType == 1 ? record.offerDiscountType == "FREE_TRIAL" : nil
        } else if record.notificationType == "DID_RENEW", record.offerType != 1, let freeTrial = state.pendingIntroIsFreeTrial {
            conversions = freeTrial ? [.introConversions, .freeTrialConversions] : [.introConversions]
            state.pendingIntroIsFreeTrial = nil
        }
        subscriptions[subscription] = state
        return conversions
    }
}

/// What the report knows of one subscription at a point of the sweep.
private struct SubscriptionState {
    /// Its latest notification so far.
    var latest: NotificationRecord
    /// Set from an intro start until its first paid renewal: whether the intro was a free trial.
    var pendingIntroIsFreeTrial: Bool?
}

/// The report's counts as they are added up.
private struct Counting {
    var series: [OutcomeCounts]
    var groupSeries: [OutcomeGroupKey: [OutcomeCounts]] = [:]
    /// `active` as differences: +1 where a subscription's interval of access opens, -1 where it stops (one more
    /// entry than buckets); summed up by `finishActive`. In total and per group.
    var activeChanges: [Int]
    var groupActiveChanges: [OutcomeGroupKey: [Int]] = [:]

    init(buckets: Int) {
        series = Array(repeating: OutcomeCounts(), count: buckets)
        activeChanges = Array(repeating: 0, count: buckets + 1)
    }

    /// Counts `state` active in buckets [`from`, `stop`).
    mutating func openActive(_ state: SubscriptionState, from: Int, stop: Int) {
        guard stop > from else { return }
        change(state, at: from, by: 1)
        change(state, at: stop, by: -1)
    }

    /// Stops counting `state` (opened at or before `index` up to `stop`) from bucket `index` on: a newer notification
    /// of its subscription arrived in that bucket.
    mutating func closeActive(_ state: SubscriptionState, at index: Int, stop: Int) {
        guard stop > index else { return }
        change(state, at: index, by: -1)
        change(state, at: stop, by: 1)
    }

    private mutating func change(_ state: SubscriptionState, at index: Int, by amount: Int) {
        activeChanges[index] += amount
        guard let group = OutcomeGroupKey(state.latest) else { return }
        let entries = activeChanges.count
        groupActiveChanges[group, default: Array(repeating: 0, count: entries)][index] += amount
    }

    /// Writes `active` into the series and the groups' series (a group with no count and never active stays out).
    mutating func finishActive() {
        var running = 0
        for index in series.indices {
            running += activeChanges[index]
            series[index][.active] = running
        }
        let buckets = series.count
        for (group, changes) in groupActiveChanges {
            running = 0
            for index in 0..<buckets {
                running += changes[index]
                if running != 0 {
                    groupSeries[group, default: Array(repeating: OutcomeCounts(), count: buckets)][index][.active] = running
                }
            }
        }
    }

    mutating func add(_ metrics: [OutcomeMetric], bucket: Int, group: OutcomeGroupKey?) {
        for metric in metrics { series[bucket][metric] += 1 }
        guard let group else { return }
        // In place: `active` adds to every group at every bucket, and a copy of the group's series each time would
        // make that quadratic in the buckets.
        let buckets = series.count
        for metric in metrics { groupSeries[group, default: Array(repeating: OutcomeCounts(), count: buckets)][bucket][metric] += 1 }
    }

    func groups() -> [OutcomeGroup] {
        groupSeries.keys.sorted().map { key in
            let series = groupSeries[key] ?? []
            return OutcomeGroup(product: key.product, offerType: key.offerType, offerIdentifier: key.offerIdentifier,
                                series: series, totals: Self.totals(series))
        }
    }

    /// The sum of `series`, with `active` the last bucket's.
    static func totals(_ series: [OutcomeCounts]) -> OutcomeCounts {
        var totals = OutcomeCounts()
        for counts in series {
            for metric in OutcomeMetric.allCases where metric != .active { totals[metric] += counts[metric] }
        }
        totals[.active] = series.last?[.active] ?? 0
        return totals
    }
}
