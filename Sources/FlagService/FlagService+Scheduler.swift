import Dispatch
import FlagKit
import FlagStore

/// What the scheduler does (`ChangeScheduler` keeps the time): at start, publish what fell due while the
/// server was down; then, at each pass, expire requests, mark stale ones, and hand due changes to the writer.
extension FlagService {
    /// Publishes every change that is due now and every `approved` one (a crash between an approval and its
    /// publication left it owed), through the writer, and returns when all are done: the server serves its
    /// first request with them applied. Each change's `appliedAt` records when it really ran.
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
            writer.submit(applyJob(change, actor: "scheduler") { _ in done.leave() })
        }
        done.wait()
        logger.log(.info, "changes_caught_up", ["count": "\(due.count)"])
    }

    /// Starts the scheduler thread; its first pass checks every environment's pending requests.
    func startScheduler() {
        scheduler.start(initiallyPublished: Set(snapshots.environments)) { [weak self] published in
            self?.schedulerPass(published: published) ?? ChangeScheduler.Outcome()
        }
    }

    /// One pass: expire pending requests past their `expiresAt`, mark stale the pending requests of the
    /// environments in `published` whose items a publish changed, hand every due change to the writer (once:
    /// `ChangeScheduler.claim`), and say when the next thing is due.
    func schedulerPass(published: Set<String>) -> ChangeScheduler.Outcome {
        // Several nodes: only the holder of the jobs' lease runs them; the others are woken when they take it.
        if store.isPostgres, !cluster.leads.load(ordering: .acquiring) { return ChangeScheduler.Outcome() }
        let now = ChangeScheduler.wallClock()
        do {
            for request in try store.expiredRequests(now: now) {
                let transition = try store.expireChange(id: request.id)
                if transition.happened {
                    logger.log(.info, "request_expired", ["env": request.environment, "change": "\(request.id)"])
                    notifyChange("request.expired", transition.record)
                }
            }
            for environment in published.sorted() { try markStaleRequests(environment) }
            for change in try store.dueChanges(now: now) where scheduler.claim(change.id) {
                writer.submit(applyJob(change, actor: "scheduler") { [scheduler] outcome in
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
            let conflicts = try conflicts(of: request, current: current)
            guard !conflicts.isEmpty else { continue }
            let transition = try store.markChangeStale(id: request.id, conflicts: conflicts)
            if transition.happened {
                logger.log(.info, "request_stale", ["env": environment, "change": "\(request.id)",
                                                    "conflicts": conflicts.map(\.pointer).joined(separator: ",")])
                notifyChange("request.stale", transition.record)
            }
        }
    }

    /// The items of `change` that someone changed since its base, to something else, in `current`.
    func conflicts(of change: ChangeRecord, current: WriteQueue.Base) throws -> [ChangeSet.Item] {
        try writer.conflicts(of: change, current: current)
    }

    /// A job that publishes `change` (made to happen by `actor`), telling the webhooks what became of it,
    /// then calling `then` (on the writer thread).
    func applyJob(_ change: ChangeRecord, actor: String, then: @escaping @Sendable (WriteOutcome) -> Void) -> WriteJob {
        WriteJob.applyChange(change, actor: actor, webhooks: webhooks, then: then)
    }

    /// Tells the webhooks of `record` as event `type`.
    func notifyChange(_ type: String, _ record: ChangeRecord) {
        webhooks.submit(type, change: record)
    }
}
