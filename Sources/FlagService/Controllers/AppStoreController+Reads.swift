import AppStoreNotifications
import FlagKit
import FlagStore
import HTTPServer

/// `GET /v1/appstore/notifications` (what was stored) and `GET /v1/appstore/outcomes` (what it adds up to), for an
/// unscoped writer token: the records belong to no environment and say how the paid app is doing, which is not a
/// reader's business (a reader token is what an app carries), and a token limited to some environments gets 403
/// like the other routes that span environments. Both run on the work queue (store reads), never on a loop.
extension AppStoreController {
    /// Most buckets one outcomes request may ask for (about 83 days of hours, 5 years of days): the work is one pass
    /// over the history plus one look per bucket at every subscription seen.
    static let maximumBuckets = 2_000
    /// `limit` of the list when none is given, and its range.
    static let defaultListLimit = 100
    static let listLimitRange = 1...10_000
    /// The window when `from` is not given: the week before `to`.
    static let defaultWindow: Int64 = 7 * 86_400_000

    func addReads(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, Self.notificationsPath, access: .unscoped(.writer)) { [self] request, _, _, _ in
            let (from, to) = try Self.range(request, now: ServiceMetrics.wallMilliseconds())
            let limit = try Self.integerParameter(request, "limit", default: Self.defaultListLimit, range: Self.listLimitRange)
            let records: [NotificationRecord]
            do {
                records = try store.notifications(signedFrom: from, to: to, limit: limit)
            } catch {
                throw ServiceError.store(error)
            }
            return Self.json(["notifications": .array(records.map(Self.json))], headers: [.cacheControl: "no-store"])
        }

        // `environment` narrows the history read to one App Store environment; the answer's members stay the plan's.
        routes.deferred(.GET, "/v1/appstore/outcomes", access: .unscoped(.writer)) { [self] request, _, _, _ in
            let now = ServiceMetrics.wallMilliseconds()
            let (from, requestedTo) = try Self.range(request, now: now)
            let bucket = try Self.bucketParameter(request)
            let product = try Self.productParameter(request)
            let environment = try Self.environmentParameter(request)
            // The last bucket is counted whole: `to` is ceiled to the bucket, as the report's buckets are.
            let to = bucket.ceil(requestedTo)
            let buckets = (to - bucket.floor(from)) / bucket.milliseconds
            guard buckets <= Int64(Self.maximumBuckets) else {
                throw Self.invalidParameter("from", "from..to spans \(buckets) \(bucket.rawValue)s; at most \(Self.maximumBuckets) buckets, "
                                                + "ask for a shorter range or bucket=day")
            }
            // Every record kept before `to`: the ones before `from` give each subscription its state (conversions,
            // `active`), so they are read too, from the start of the retention.
            var history: [NotificationRecord]
            do {
                history = try store.notifications(signedFrom: options.retentionStart(now: now), to: to)
            } catch {
                throw ServiceError.store(error)
            }
            // One environment's figures (a server taking Production and Sandbox stores both).
            if let environment { history.removeAll { $0.environment != environment.rawValue } }
            let report = OutcomeReport.compute(history: history, from: from, to: to, bucket: bucket, product: product)
            var answer = Self.json(report)
            // What was stored stays readable with the receiver off; the console says why nothing new arrives.
            answer["receiver"] = .string(options.verifier == nil ? "off" : "on")
            return Self.json(answer, headers: [.cacheControl: "no-store"])
        }
    }

    // MARK: Parameters

    /// `from` and `to` (RFC 3339 times or UTC dates); `to` defaults to `now`, `from` to a week before `to`; 400
    /// naming the parameter when one is not a time or `from` is not before `to`.
    static func range(_ request: HTTPRequest, now: Int64) throws(ServiceError) -> (from: Int64, to: Int64) {
        let to = try timeParameter(request, "to") ?? now
        let from = try timeParameter(request, "from") ?? to - defaultWindow
        guard from < to else { throw invalidParameter("from", "from must be before to") }
        return (from, to)
    }

    /// An RFC 3339 time with an offset (`2026-12-01T00:00:00Z`) or a date (`2026-12-01`, midnight UTC), as
    /// milliseconds; nil when absent.
    static func timeParameter(_ request: HTTPRequest, _ name: String) throws(ServiceError) -> Int64? {
        guard let text = request.queryParameter(name) else { return nil }
        do {
            return try time(text)
        } catch {
            throw invalidParameter(name, "\(name) must be an RFC 3339 time (2026-12-01T00:00:00Z) or a date (2026-12-01), got '\(text)'")
        }
    }

    /// `text` as a time: RFC 3339 with an offset, or `YYYY-MM-DD` read as that day's midnight UTC.
    static func time(_ text: String) throws(FlagDocumentError) -> Int64 {
        if text.utf8.count == 10 { return try RFC3339.milliseconds(parsing: text + "T00:00:00Z") }
        return try RFC3339.milliseconds(parsing: text)
    }

    /// `bucket`: `hour` or `day` (the default).
    static func bucketParameter(_ request: HTTPRequest) throws(ServiceError) -> OutcomeBucket {
        guard let text = request.queryParameter("bucket") else { return .day }
        guard let bucket = OutcomeBucket(rawValue: text) else { throw invalidParameter("bucket", "bucket must be hour or day, got '\(text)'") }
        return bucket
    }

    /// `environment`: only the records of this App Store environment (`Production`, `Sandbox`, ...); nil: all.
    static func environmentParameter(_ request: HTTPRequest, name: String = "environment") throws(ServiceError) -> AppStoreEnvironment? {
        guard let text = request.queryParameter(name) else { return nil }
        guard let environment = AppStoreEnvironment(rawValue: text) else {
            throw invalidParameter(name, "\(name) must be Production, Sandbox, Xcode or LocalTesting, got '\(text)'")
        }
        return environment
    }

    /// `product`: a product identifier, 1 to 200 bytes; nil when absent.
    static func productParameter(_ request: HTTPRequest) throws(ServiceError) -> String? {
        guard let text = request.queryParameter("product") else { return nil }
        guard !text.isEmpty, text.utf8.count <= 200 else { throw invalidParameter("product", "product must be 1 to 200 bytes") }
        return text
    }

    /// 400 `invalid_parameter` naming the parameter (also as the error's `parameter` member).
    static func invalidParameter(_ name: String, _ message: String) -> ServiceError {
        ServiceError(.badRequest, code: "invalid_parameter", message: message, extra: ["parameter": .string(name)])
    }

    // MARK: JSON

    /// One stored notification as the list shows it: every field present (`null` when absent), times in RFC 3339
    /// UTC with milliseconds.
    static func json(_ record: NotificationRecord) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        func time(_ value: Int64?) -> JSONValue { value.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null }
        return .object([
            "notificationUUID": .string(record.notificationUUID), "notificationType": .string(record.notificationType),
            "subtype": text(record.subtype), "signedDate": time(record.signedDate), "receivedAt": time(record.receivedAt),
            "environment": .string(record.environment), "productId": text(record.productID), "offerType": integer(record.offerType),
            "offerIdentifier": text(record.offerIdentifier), "offerDiscountType": text(record.offerDiscountType),
            "price": record.price.map { .integer($0) } ?? .null, "currency": text(record.currency),
            "storefront": text(record.storefront), "transactionReason": text(record.transactionReason),
            "expiresDate": time(record.expiresDate), "expirationIntent": integer(record.expirationIntent),
            "revocationReason": integer(record.revocationReason), "priceIncreaseStatus": integer(record.priceIncreaseStatus),
            "autoRenewStatus": integer(record.autoRenewStatus),
            "isInBillingRetryPeriod": record.isInBillingRetryPeriod.map(JSONValue.bool) ?? .null,
            "gracePeriodExpiresDate": time(record.gracePeriodExpiresDate), "subscription": text(record.subscription),
        ])
    }

    /// The outcomes as the API shows them: the range, the metric names in order, each bucket's start, one object of
    /// every metric's count per bucket, the totals, and the same per product and offer.
    static func json(_ report: OutcomeReport) -> [String: JSONValue] {
        [
            "from": .string(RFC3339.string(milliseconds: report.from)), "to": .string(RFC3339.string(milliseconds: report.to)),
            "bucket": .string(report.bucket.rawValue), "product": report.product.map(JSONValue.string) ?? .null,
            "metrics": .array(OutcomeMetric.allCases.map { .string($0.rawValue) }),
            "buckets": .array(report.buckets.map { .string(RFC3339.string(milliseconds: $0)) }),
            "series": .array(report.series.map(json)), "totals": json(report.totals),
            "groups": .array(report.groups.map { group in
                .object(["product": .string(group.product), "offerType": group.offerType.map { .integer(Int64($0)) } ?? .null,
                         "offerIdentifier": group.offerIdentifier.map(JSONValue.string) ?? .null,
                         "series": .array(group.series.map(json)), "totals": json(group.totals)])
            }),
        ]
    }

    /// Every metric's count, by its name.
    static func json(_ counts: OutcomeCounts) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (metric, count) in counts.all { object[metric.rawValue] = .integer(Int64(count)) }
        return .object(object)
    }
}
