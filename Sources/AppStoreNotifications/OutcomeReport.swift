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
    /// `history` is every record signed before `to`, in `signedDate` order (the store's order; it is sorted here
    /// when it is not): the records before `from` count nothing themselves but give each subscription its state,
    /// which the conversions and `active` need. A count lands in the bucket of the record's `signedDate`, under its
    /// `productID` and offer; with `product`, only that product's records count.
    ///
    /// - The conversions follow each subscription (its `subscription` hash) through the whole history: a start
    ///   with `offerType` 1 makes its next `DID_RENEW` without `offerType` 1 a conversion (a free trial's also a
    ///   free-trial conversion), counted in that renewal's bucket; later renewals are not, until the next intro start.
    /// - `active` at a bucket's end: the subscriptions whose latest notification signed before that end is not
    ///   `EXPIRED`, `GRACE_PERIOD_EXPIRED`, `REFUND` or `REVOKE` and whose `expiresDate` or
    ///   `gracePeriodExpiresDate` is after that end; counted under that latest notification's product and offer.
    ///
    /// The work is one pass over `history` plus, per bucket, one look at every subscription seen: the caller bounds
    /// the range (the number of buckets) and the history it reads.
    public static func compute(history: [NotificationRecord], from: Int64, to: Int64, bucket: OutcomeBucket,
                               product: String?) -> OutcomeReport {
        let start = bucket.floor(from)
        let end = max(start, bucket.ceil(to))
        let buckets = Array(stride(from: start, to: end, by: Int(bucket.milliseconds)))
        let records = isOrdered(history) ? history : history.sorted { ($0.signedDate, $0.notificationUUID) < ($1.signedDate, $1.notificationUUID) }
        var counting = Counting(buckets: buckets.count)
        var subscriptions: [String: SubscriptionState] = [:]
        var next = 0
        // Records before the range: state only.
        while next < records.count, records[next].signedDate < start {
            _ = follow(records[next], &subscriptions)
            next += 1
        }
        for (index, bucketStart) in buckets.enumerated() {
            let bucketEnd = bucketStart + bucket.milliseconds
            while next < records.count, records[next].signedDate < bucketEnd {
                let record = records[next]
                next += 1
                var metrics = OutcomeMetric.counted(for: record)
                metrics += follow(record, &subscriptions)
                guard product == nil || record.productID == product, !metrics.isEmpty else { continue }
                counting.add(metrics, bucket: index, group: OutcomeGroupKey(record))
            }
            for state in subscriptions.values where state.hasAccess(at: bucketEnd) {
                guard product == nil || state.latest.productID == product else { continue }
                counting.add([.active], bucket: index, group: OutcomeGroupKey(state.latest))
            }
        }
        return OutcomeReport(from: start, to: end, bucket: bucket, product: product, buckets: buckets, series: counting.series,
                             groups: counting.groups(), totals: Counting.totals(counting.series))
    }

    /// Whether `records` are in (`signedDate`, `notificationUUID`) order already.
    private static func isOrdered(_ records: [NotificationRecord]) -> Bool {
        zip(records, records.dropFirst()).allSatisfy { $0.signedDate <= $1.signedDate }
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

    /// Whether it has access at `time` by its latest notification.
    func hasAccess(at time: Int64) -> Bool {
        guard !OutcomeMetric.accessEndingTypes.contains(latest.notificationType) else { return false }
        return (latest.expiresDate ?? .min) > time || (latest.gracePeriodExpiresDate ?? .min) > time
    }
}

/// The report's counts as they are added up.
private struct Counting {
    var series: [OutcomeCounts]
    var groupSeries: [OutcomeGroupKey: [OutcomeCounts]] = [:]

    init(buckets: Int) {
        series = Array(repeating: OutcomeCounts(), count: buckets)
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
