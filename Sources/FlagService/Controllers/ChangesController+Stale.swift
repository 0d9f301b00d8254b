import FlagKit
import FlagStore
import HTTPServer

/// `GET /v1/environments/{env}/stale?days=N` (`docs/governance.md`, "Flag lifecycle"): flags past their
/// `removeAfter` date and flags that have given one value for N days, computed from the history.
extension ChangesController {
    /// The most versions one listing reads (a bound on its cost). Past it the answer says `historyLimited`:
    /// constancy is judged on the versions read, so a `constantSince` may be later than the truth, and
    /// when all of them are newer than the cutoff, no flag is called constant.
    static let staleScanLimit = 10_000

    func addStale(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/environments/{env}/stale", access: .reader) { [self] request, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
            let days = try Self.integerParameter(request, "days", default: 30, range: 0...3650)
            guard let current = snapshots.snapshot(name) else {
                throw ServiceError(.notFound, code: "no_version", message: "\(name) has no published version yet")
            }
            let now = ChangeScheduler.wallClock()
            let (scan, limited) = try scanHistory(name, now: now, days: days)
            let flags = scan.staleFlags(current: current.document, policy: policies.policy(name), today: CalendarDate(utcDayOf: now))
            return Self.json(["environment": .string(name), "days": .integer(Int64(days)), "version": .integer(Int64(current.version)),
                              "asOf": .string(RFC3339.string(milliseconds: now)), "historyLimited": .bool(limited),
                              "flags": .array(flags.map(\.jsonValue))], headers: [.cacheControl: "no-store"])
        }
    }

    /// Feeds `environment`'s versions to a scan, newest first, until it needs no more (or `staleScanLimit`
    /// versions were read: then `limited`). Each distinct content is decoded once (rollbacks and flip-flops
    /// repeat contents).
    func scanHistory(_ environment: String, now: Int64, days: Int) throws(ServiceError) -> (StaleFlagScan, limited: Bool) {
        var scan = StaleFlagScan(now: now, days: days)
        var decoded: [String: FlagDocument] = [:]
        var before: Int?
        var read = 0
        while scan.needsMore {
            guard read < Self.staleScanLimit else {
                // Read as far as allowed: treat the oldest version read as the start of history.
                return (scan, true)
            }
            let page = try ServiceError.storing { try store.versions(environment: environment, limit: 200, before: before) }
            for record in page {
                let document: FlagDocument
                if let known = decoded[record.contentHash] {
                    document = known
                } else {
                    document = try ServiceError.storing { try FlagDocument.decode(record.document) }
                    decoded[record.contentHash] = document
                }
                scan.add(publishedAt: record.createdAtMilliseconds, document: document)
                read += 1
                if !scan.needsMore { break }
            }
            guard let last = page.last, page.count == 200, last.number > 1 else { break }
            before = last.number
        }
        return (scan, false)
    }
}
