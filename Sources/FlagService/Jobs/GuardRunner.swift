import AppStoreNotifications
import FlagKit
import FlagStore
import OutcomeAnalysis
import ServerLock

/// The guards' job (docs/guards.md, "The service"), run from the scheduler's passes on the node that runs the jobs (at
/// least once a minute; at most once a minute of its clock, since a pass may come every second while schedules wait):
/// waiting guards start watching when their change is applied, or are cancelled when it ended without; watching ones
/// are evaluated on the hourly outcomes from their publication − 7 days (the notifications of complete hours kept from
/// pass to pass, `GuardHistoryCache`), closed past their window, and act when they trip (`GuardRunner+Actions`). Every status change is a compare-and-set in the store, and passes are serialized here,
/// so a guard acts once.
final class GuardRunner: Sendable {
    let store: FlagStore
    let writer: WriteQueue
    let webhooks: WebhookDispatcher
    let leadership: Leadership
    let logger: ServiceLogger
    let metrics: GuardMetrics
    /// The notifications' retention: the history is read from its start (a subscription's state needs its past).
    let appStore: FlagService.AppStoreOptions
    /// The time the guards see (ms since 1970 UTC): the wall clock, or a test's.
    let clock: @Sendable () -> Int64
    /// When the last pass ran (the clock's time); passes one at a time.
    private let lastPass = PThreadMutex<Int64?>(nil)
    /// The notifications of complete past hours, kept between passes (read only within a pass, so under `lastPass`).
    let historyCache = PThreadMutex(GuardHistoryCache())

    /// Evaluations come this often at most from the scheduler's passes (the per-look alpha assumes one a minute).
    static let interval: Int64 = 60_000
    /// An hour, in milliseconds.
    static let hour = OutcomeBucket.hour.milliseconds
    /// The previous week the baseline reads before publication.
    static let lookBack: Int64 = 7 * 24 * hour

    init(store: FlagStore, writer: WriteQueue, webhooks: WebhookDispatcher, leadership: Leadership, logger: ServiceLogger,
         metrics: GuardMetrics, appStore: FlagService.AppStoreOptions, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.writer = writer
        self.webhooks = webhooks
        self.leadership = leadership
        self.logger = logger
        self.metrics = metrics
        self.appStore = appStore
        self.clock = clock
    }

    /// A pass when a minute of the clock has gone by since the last one (the scheduler's passes).
    func runIfDue() {
        run(force: false)
    }

    /// A pass now, whenever the last one was (tests and the rehearsal, after stepping the clock); nothing on a node
    /// that does not run the jobs.
    func runNow() {
        run(force: true)
    }

    private func run(force: Bool) {
        guard leadership.isLeading else { return }
        lastPass.withLock { last in
            let now = clock()
            if !force, let last, now - last < Self.interval, now >= last {
                keepHolding()
                return
            }
            last = now
            keepHolding()
            do {
                try startOrCancelWaiting()
                try evaluateWatching(now: now)
                metrics.setStatuses(try store.guardCounts())
            } catch {
                // The store failed (busy, disk): the next pass tries again.
                logger.log(.error, "guards_failed", ["error": "\(error)"])
            }
        }
    }

    /// A tripped `pauseSchedules` guard holds the environment's schedules until it is overridden or removed, also those
    /// made after the trip: every pass (up to one a second while schedules wait) holds the new ones before they are due.
    private func keepHolding() {
        do {
            for record in try store.guards(statuses: [.tripped])
            where record.action?.objectValue?["kind"] == "pauseSchedules" && record.action?.objectValue?["outcome"] == "done" {
                let held = try store.holdScheduledChanges(environment: record.environment, guardID: record.id)
                if !held.isEmpty {
                    logger.log(.info, "guard_holding", ["guard": "\(record.id)", "changes": held.map(String.init).joined(separator: ",")])
                }
            }
        } catch {
            logger.log(.error, "guards_failed", ["error": "\(error)"])
        }
    }

    /// Waiting guards whose change was applied watch its version from its publication; those whose change ended
    /// unapplied are cancelled.
    private func startOrCancelWaiting() throws {
        for waiting in try store.guards(statuses: [.waiting]) {
            guard let changeID = waiting.changeID else { continue }
            let change = try store.change(id: changeID)
            if change.status == .applied, let version = change.appliedVersion {
                let record = try store.version(environment: change.environment, number: version)
                let transition = try store.startWatching(id: waiting.id, version: version,
                                                         publishedAt: record.createdAtMilliseconds)
                if transition.happened {
                    logger.log(.info, "guard_watching", ["guard": "\(waiting.id)", "env": waiting.environment, "version": "\(version)"])
                }
            } else if change.status.isFinal {
                if try store.cancelGuard(id: waiting.id).happened {
                    logger.log(.info, "guard_cancelled", ["guard": "\(waiting.id)", "change": "\(changeID)",
                                                          "status": change.status.rawValue])
                }
            }
        }
    }

    /// What a pass makes of a watching guard: its decision, or that its window is over (it is closed).
    enum Evaluation {
        case decided(GuardRule, GuardDecision)
        case windowOver
    }

    /// Evaluates every watching guard and acts on what it decided.
    private func evaluateWatching(now: Int64) throws {
        let watching = try store.guards(statuses: [.watching])
        for (record, evaluation) in try evaluations(of: watching, now: now) {
            switch evaluation {
            case .windowOver:
                close(record, at: now)
            case .decided(let rule, let decision):
                metrics.recordDecision(decision.verdict)
                decide(record, rule: rule, decision: decision, at: now)
            }
        }
    }

    /// Each of `watching`'s evaluations at `now`, in order (a guard whose rule cannot be read is logged and left out):
    /// one read of the stored notifications, of the hours since the last pass when the cache still holds the rest
    /// (`GuardHistoryCache`), and one hourly report per (App Store environment, product).
    func evaluations(of watching: [GuardRecord], now: Int64) throws -> [(GuardRecord, Evaluation)] {
        guard !watching.isEmpty else {
            historyCache.withLock { $0.clear() }
            return []
        }
        var evaluations: [(GuardRecord, Evaluation)] = []
        var histories: [String: [NotificationRecord]] = [:]
        var reports: [String: OutcomeReport] = [:]
        // The earliest hour any open window needs, per report: its publication − 7 days. And where the read of each App
        // Store environment's notifications starts: there too, unless a guard counts what needs each subscription's past
        // (intro conversions follow it to its intro start, `active` to its latest notification): then at the retention.
        var starts: [String: Int64] = [:]
        var readFrom: [String: Int64] = [:]
        var rules: [Int64: Result<GuardRule, any Error>] = [:]
        let retentionStart = appStore.retentionStart(now: now)
        for record in watching {
            guard let published = record.publishedAtMilliseconds else { continue }
            let key = Self.reportKey(record)
            starts[key] = min(starts[key] ?? .max, published - Self.lookBack)
            let rule = Result { try GuardRule.decoding(record.rule) }
            rules[record.id] = rule
            let needsPast = (try? rule.get()).map { $0.metric == .introConversions || $0.measure == .perActive } ?? true
            let from = needsPast ? retentionStart : max(retentionStart, OutcomeBucket.hour.floor(published - Self.lookBack))
            readFrom[record.appStoreEnvironment] = min(readFrom[record.appStoreEnvironment] ?? .max, from)
        }
        let end = OutcomeBucket.hour.ceil(now)
        // One read for every App Store environment, from the earliest start any needs; the hours complete before now
        // come from the cache when the store still holds exactly those rows.
        var everything: [NotificationRecord]?
        for record in watching {
            guard let published = record.publishedAtMilliseconds else { continue }
            let rule: GuardRule
            do {
                rule = try (rules[record.id] ?? Result { try GuardRule.decoding(record.rule) }).get()
            } catch {
                logger.log(.error, "guard_rule_unreadable", ["guard": "\(record.id)", "error": "\(error)"])
                continue
            }
            let windowEnd = record.windowEndsAtMilliseconds ?? .max
            if now >= windowEnd {
                evaluations.append((record, .windowOver))
                continue
            }
            let key = Self.reportKey(record)
            let report: OutcomeReport
            if let computed = reports[key] {
                report = computed
            } else {
                if histories[record.appStoreEnvironment] == nil {
                    let all = try everything ?? historyCache.withLock { cache in
                        try cache.history(from: readFrom.values.min() ?? retentionStart, to: end,
                                          complete: OutcomeBucket.hour.floor(now), store: store)
                    }
                    everything = all
                    let start = readFrom[record.appStoreEnvironment] ?? retentionStart
                    histories[record.appStoreEnvironment] = all.filter {
                        $0.environment == record.appStoreEnvironment && $0.signedDate >= start
                    }
                }
                // Windows are at most 720 hours, so a report spans at most 888 hours plus the open ones' spread.
                let from = max(starts[key] ?? published - Self.lookBack, now - (720 + 168) * Self.hour)
                report = OutcomeReport.compute(history: histories[record.appStoreEnvironment] ?? [], from: from, to: end,
                                               bucket: .hour, product: record.product)
                reports[key] = report
            }
            evaluations.append((record, .decided(rule, GuardEvaluator.evaluate(rule: rule, hourly: report, publishedAt: published, now: now))))
        }
        return evaluations
    }

    /// Keeps the decision; audits a `held` one when its watched hours are new; trips and acts on `tripped`.
    private func decide(_ record: GuardRecord, rule: GuardRule, decision: GuardDecision, at now: Int64) {
        let json = decision.jsonValue(rule: rule, at: now)
        do {
            switch decision.verdict {
            case .tripped:
                let transition = try store.tripGuard(id: record.id, decision: json, at: now,
                                                     audit: audit(record, "guard.tripped", json, at: now))
                guard transition.happened else { return }
                logger.log(.warning, "guard_tripped", ["guard": "\(record.id)", "env": record.environment,
                                                       "message": decision.message(for: rule, id: record.id)])
                webhooks.submit("guard.tripped", guard: transition.record, decision: json)
                act(transition.record, rule: rule, decision: decision, at: now)
            case .held:
                let audited = try store.recordGuardDecision(id: record.id, decision: json, at: now, auditHours: decision.figures.hours,
                                                            audit: audit(record, "guard.held", json, at: now))
                if audited { webhooks.submit("guard.held", guard: try store.guardRecord(id: record.id), decision: json) }
            case .notEnoughData, .outsideWindow:
                try store.recordGuardDecision(id: record.id, decision: json, at: now, auditHours: nil, audit: nil)
            }
        } catch {
            logger.log(.error, "guard_decision_failed", ["guard": "\(record.id)", "error": "\(error)"])
        }
    }

    /// Past its window without a trip: closed, with the last decision kept.
    private func close(_ record: GuardRecord, at now: Int64) {
        do {
            let detail: JSONValue = record.lastDecision ?? .null
            let transition = try store.closeGuard(id: record.id, decision: nil, at: now,
                                                  audit: audit(record, "guard.closed", detail, at: now))
            guard transition.happened else { return }
            logger.log(.info, "guard_closed", ["guard": "\(record.id)", "env": record.environment])
            webhooks.submit("guard.closed", guard: transition.record, decision: record.lastDecision)
        } catch {
            logger.log(.error, "guard_close_failed", ["guard": "\(record.id)", "error": "\(error)"])
        }
    }

    /// A decision's audit line: actor `guard`, the guard as target, the watched version, the JSON as detail. Written at
    /// the wall clock's time like every audit line (the decision's own `at` is the jobs' clock).
    func audit(_ record: GuardRecord, _ action: String, _ detail: JSONValue, at now: Int64,
               outcome: AuditOutcome = .ok, reason: String? = nil) -> AuditRecord {
        AuditRecord(actor: "guard", action: action, environment: record.environment, target: String(record.id), outcome: outcome,
                    reason: reason, version: record.version, detail: detail.canonicalString)
    }

    /// Guards that read the same notifications share one report.
    private static func reportKey(_ record: GuardRecord) -> String {
        record.appStoreEnvironment + "\u{0}" + (record.product ?? "")
    }
}
