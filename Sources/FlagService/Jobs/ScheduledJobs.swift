import Dispatch
import FlagKit
import FlagStore

/// What the scheduler does (`ChangeScheduler` keeps the time), on the node that leads (`Leadership`): at start,
/// publish what fell due while the server was down; then, at each pass, expire requests, mark stale ones, and hand
/// due changes to the writer, and evaluate the guards (`GuardRunner`). Every write a pass causes is a writer job, except
/// the hourly deletion of App Store notifications past their retention (`NotificationRetention`) and the guards' own
/// rows, which change no document.
final class ScheduledJobs: Sendable {
    let store: FlagStore
    let writer: WriteQueue
    let scheduler: ChangeScheduler
    /// Told what became of each change (`change.applied`, `request.expired`, ...).
    let webhooks: WebhookDispatcher
    /// Whether this node runs the passes; a node that does not is woken when it takes the lease (`ClusterNode`).
    let leadership: Leadership
    let logger: ServiceLogger
    /// Deletes App Store notifications past their retention, at most once an hour, in the passes.
    let retention: NotificationRetention?
    /// Evaluates the guards and acts on trips, once a minute, in the passes.
    let guards: GuardRunner?

    /// The jobs of `scheduler`'s passes. Call `start`.
    init(store: FlagStore, writer: WriteQueue, scheduler: ChangeScheduler, webhooks: WebhookDispatcher, leadership: Leadership,
         logger: ServiceLogger, retention: NotificationRetention? = nil, guards: GuardRunner? = nil) {
        self.retention = retention
        self.guards = guards
        self.store = store
        self.writer = writer
        self.scheduler = scheduler
        self.webhooks = webhooks
        self.leadership = leadership
        self.logger = logger
    }

    /// Starts the scheduler thread; its first pass checks the pending requests of `environments`. A node that always
    /// leads (one process) first publishes what is owed (`catchUpOnChanges`) and returns after it, so the server serves
    /// its first request with it applied; with several nodes the one that takes the lease does it in its first pass.
    func start(environments: [String]) {
        if leadership.isPermanent { catchUpOnChanges() }
        scheduler.start(initiallyPublished: Set(environments)) { [weak self] published in
            self?.pass(published: published) ?? ChangeScheduler.Outcome()
        }
    }

    /// Publishes every change that is due now and every `approved` one (a crash between an approval and its
    /// publication left it owed), through the writer, and returns when all are done. Each change's `appliedAt` records
    /// when it really ran.
    func catchUpOnChanges() {
        let due: [ChangeRecord]
        do {
            due = try store.dueChanges(now: ChangeScheduler.wallClock())
        } catch {
            logger.log(.error, "changes_unreadable", ["error": "\(error)"])
            return
        }
        guard !due.isEmpty else { return }
        let done = DispatchGroup()
        for change in due {
            done.enter()
            writer.submit(WriteJob.applyChange(change, actor: "scheduler", webhooks: webhooks) { _ in done.leave() })
        }
        done.wait()
        logger.log(.info, "changes_caught_up", ["count": "\(due.count)"])
    }

    /// One pass: expire pending requests past their `expiresAt`, mark stale the pending requests of the
    /// environments in `published` whose items a publish changed, hand every due change to the writer (once:
    /// `ChangeScheduler.claim`), and say when the next thing is due. Nothing while another node leads.
    func pass(published: Set<String>) -> ChangeScheduler.Outcome {
        guard leadership.isLeading else { return ChangeScheduler.Outcome() }
        let now = ChangeScheduler.wallClock()
        // A pass comes at least once a minute (`ChangeScheduler.idleCap`); the deletion itself once an hour.
        retention?.runIfDue(now: now)
        // Guards watch the changes these passes publish; a rollback goes through the writer like them.
        guards?.runIfDue()
        do {
            for request in try store.expiredRequests(now: now) {
                let transition = try store.expireChange(id: request.id)
                if transition.happened {
                    logger.log(.info, "request_expired", ["env": request.environment, "change": "\(request.id)"])
                    webhooks.submit("request.expired", change: transition.record)
                }
            }
            for environment in published.sorted() { try markStaleRequests(environment) }
            for change in try store.dueChanges(now: now) where scheduler.claim(change.id) {
                writer.submit(WriteJob.applyChange(change, actor: "scheduler", webhooks: webhooks) { [scheduler] outcome in
                    let failed = if case .failed = outcome { true } else { false }
                    scheduler.finished(change.id, succeeded: !failed)
                })
            }
            let expiry = try store.nextExpiry()
            let nextDue = [try store.nextDueTime(), expiry].compactMap { $0 }.min()
            return ChangeScheduler.Outcome(nextDue: nextDue, pendingRequests: expiry != nil)
        } catch {
            // The store failed (busy, disk): try again in a second, watching publishes meanwhile.
            logger.log(.error, "scheduler_failed", ["error": "\(error)"])
            return ChangeScheduler.Outcome(nextDue: now + ChangeScheduler.dueCap, pendingRequests: true)
        }
    }

    /// Marks `stale` every pending request of `environment` that conflicts with its current version (an item
    /// it sets was changed since its base, to something else), so it must be proposed again.
    func markStaleRequests(_ environment: String) throws {
        let pending = try store.changes(query: .requests(environment: environment, statuses: [.pending],
                                                         limit: ChangeQuery.limitRange.upperBound))
        guard !pending.isEmpty else { return }
        let current = writer.current(environment)
        for request in pending {
            let conflicts = try writer.conflicts(of: request, current: current)
            guard !conflicts.isEmpty else { continue }
            let transition = try store.markChangeStale(id: request.id, conflicts: conflicts)
            if transition.happened {
                logger.log(.info, "request_stale", ["env": environment, "change": "\(request.id)",
                                                    "conflicts": conflicts.map(\.pointer).joined(separator: ",")])
                webhooks.submit("request.stale", change: transition.record)
            }
        }
    }
}
