import AppStoreNotifications
import FlagKit
import FlagStore
import HTTPServer
import OutcomeAnalysis

/// `GET /v1/environments/{env}/experiments/{flag}` (the arms from the flag's split) and `GET /v1/appstore/experiment`
/// (explicit arms): a price or offer experiment read from the stored notifications (docs/guards.md, "Experiments";
/// docs/api.md). Unscoped writer tokens, like the outcomes: they say how the paid app is doing. On the work queue.
extension AppStoreController {
    /// What the notifications cannot say, so no figure of the answer includes it.
    static let experimentNotKnown = [
        "Apple's commission (15 % or 30 %)", "taxes (most storefronts' prices include VAT)",
        "the storefronts' own prices and currencies (every paid period counts at the arm's list price)",
        "introductory prices (an intro period counts at the list price)",
    ]
    /// Most versions read back to find when the split was published (each one's document is decoded).
    static let experimentVersionsWalked = 2_000

    func addExperiments(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/environments/{env}/experiments/{flag}", access: .unscoped(.writer)) { [self] request, context, _, _ in
            let environment = try snapshots.requestedEnvironment(context)
            let key = context.pathParameters["flag"] ?? ""
            guard let snapshot = snapshots.snapshot(environment), let flag = snapshot.document.flags[key] else {
                throw ServiceError(.notFound, code: "flag_not_found", message: "flag \"\(key)\" is not in \(environment)'s document")
            }
            let split: ExperimentSplit
            do throws(ExperimentSplit.Refusal) {
                split = try ExperimentSplit.derive(key: key, flag: flag)
            } catch {
                throw ServiceError(.unprocessableContent, code: "not_an_experiment", message: error.message)
            }
            let to = try Self.timeParameter(request, "to") ?? ServiceMetrics.wallMilliseconds()
            let since = try splitSince(environment: environment, key: key, split: split, head: snapshot.record)
            let from = try Self.timeParameter(request, "from") ?? since.createdAtMilliseconds
            let prices = try Self.priceParameters(request)
            let arms = split.arms.map { arm in
                (ExperimentArm(product: arm.product, offer: arm.offer, share: Double(arm.thousandths) / 1000), prices[arm.product])
            }
            var answer = try analyze(arms, from: from, to: to, request)
            answer["environment"] = .string(environment)
            answer["flag"] = .string(key)
            answer["version"] = .integer(Int64(snapshot.version))
            answer["splitSince"] = .object(["version": .integer(Int64(since.number)),
                                            "publishedAt": .string(RFC3339.string(milliseconds: since.createdAtMilliseconds))])
            return Self.json(answer, headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/appstore/experiment", access: .unscoped(.writer)) { [self] request, _, _, _ in
            var arms: [(ExperimentArm, ExperimentPrice?)] = []
            for item in request.queryItems where item.name == "arm" {
                guard let arm = ExplicitArm.parse(item.value) else {
                    throw Self.invalidParameter("arm", "arm must be PRODUCT[/OFFER]:SHARE[:AMOUNT:CUR] (symi_plus_monthly_499:50:4.99:EUR), got '\(item.value)'")
                }
                arms.append((ExperimentArm(product: arm.product, offer: arm.offer, share: arm.share), arm.price))
            }
            let (from, to) = try Self.range(request, now: ServiceMetrics.wallMilliseconds())
            let answer = try analyze(arms, from: from, to: to, request)
            return Self.json(answer, headers: [.cacheControl: "no-store"])
        }
    }

    /// The oldest version since which `key`'s split is the one in `head` (same arms, shares and salt), reading back
    /// at most `experimentVersionsWalked` versions.
    func splitSince(environment: String, key: String, split: ExperimentSplit, head: VersionRecord) throws(ServiceError) -> VersionRecord {
        var oldest = head
        var walked = 0
        while walked < Self.experimentVersionsWalked, oldest.number > 1 {
            let before = oldest.number
            let page = try ServiceError.storing { try store.versions(environment: environment, limit: 200, before: before) }
            guard !page.isEmpty else { break }
            for record in page {
                walked += 1
                guard let flag = try? FlagDocument.decode(record.document).flags[key],
                      (try? ExperimentSplit.derive(key: key, flag: flag)) == split else { return oldest }
                oldest = record
            }
        }
        return oldest
    }

    /// The analysis of `arms` over [`from`, `to`) on the notifications of `appStoreEnvironment` (default
    /// Production); arms without a given price take the most frequent one of their product's notifications.
    func analyze(_ given: [(ExperimentArm, ExperimentPrice?)], from: Int64, to: Int64,
                 _ request: HTTPRequest) throws(ServiceError) -> [String: JSONValue] {
        guard from < to else { throw Self.invalidParameter("from", "from must be before to") }
        let start = OutcomeBucket.day.floor(from)
        let end = OutcomeBucket.day.ceil(to)
        let days = (end - start) / OutcomeBucket.day.milliseconds
        guard days <= Int64(Self.maximumBuckets) else {
            throw Self.invalidParameter("from", "from..to spans \(days) days; at most \(Self.maximumBuckets)")
        }
        // Which stored notifications are read; Production when absent.
        let environment = try Self.environmentParameter(request, name: "appStoreEnvironment") ?? .production
        let alpha = try Self.alphaParameter(request)
        var history = try ServiceError.storing { try store.notifications(signedFrom: start, to: end) }
        history.removeAll { $0.environment != environment.rawValue }
        var arms: [ExperimentArm] = []
        var sources: [JSONValue] = []
        for (arm, price) in given {
            var priced = arm
            let found = price ?? ExperimentPrice.mostFrequent(product: arm.product, in: history)
            priced.listPrice = found?.milliunits
            priced.currency = found?.currency
            arms.append(priced)
            sources.append(found.map { .string($0.source) } ?? .null)
        }
        let report: ExperimentReport
        do {
            report = try ExperimentAnalysis.analyze(arms: arms, history: history, from: start, to: end, alpha: alpha)
        } catch {
            throw ServiceError(.unprocessableContent, code: "invalid_experiment", message: error.description,
                               extra: ["field": .string(error.field)])
        }
        var answer = Self.json(report, sources: sources)
        answer["from"] = .string(RFC3339.string(milliseconds: start))
        answer["to"] = .string(RFC3339.string(milliseconds: end))
        answer["appStoreEnvironment"] = .string(environment.rawValue)
        answer["days"] = .array((0..<days).map { .string(RFC3339.string(milliseconds: start + $0 * OutcomeBucket.day.milliseconds)) })
        return answer
    }
}
