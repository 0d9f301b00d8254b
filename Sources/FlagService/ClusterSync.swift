import FlagStore
import Foundation
import ServerLock
import Synchronization

/// Several nodes on one PostgreSQL (`docs/scaling.md`): a thread per node that keeps its in-memory state as the
/// database says and decides whether this node runs the jobs that must run once.
///
/// Each round it waits up to `interval` (default 1 s) for another node's publish or change (`StoreListener`,
/// LISTEN/NOTIFY: at once), then compares every environment's newest version with the installed snapshot and installs
/// and announces what is newer (notifications are lost when a connection drops or the primary changes; the
/// comparison is not), wakes the scheduler of the node running the jobs when a change was recorded elsewhere,
/// reloads the token table (its only timer on PostgreSQL), the policies and the webhook receivers (at most once an
/// `interval`, and after a reconnect or a change: nothing notifies of those tables), and renews the
/// jobs' lease (`JobLease`). Not started on SQLite, where one process owns the file.
final class ClusterSync: Sendable {
    /// How long a round waits for a notification before it compares anyway.
    let interval: Duration
    /// Whether this node holds the jobs' lease; set here only.
    let leadership: Leadership
    /// When (monotonic nanoseconds) the round next reloads the token table, the policies and the webhook receivers:
    /// at most once an `interval`. A round woken only by published versions (every commit of every node notifies)
    /// catches up and leaves them: before, every notification cost those three reads on every node.
    let nextReload = Atomic<UInt64>(0)
    private let state = PThreadCondition((stopping: false, finished: false))

    init(interval: Duration, leadership: Leadership) {
        self.interval = interval
        self.leadership = leadership
    }

    /// Starts the thread; `round` runs after every wait with what the wait heard (after a failed wait: a reconnect,
    /// as notifications were missed), `leadershipChanged` when the lease is taken or lost.
    func start(store: FlagStore, logger: ServiceLogger, round: @escaping @Sendable (StoreListener.Heard) -> Void,
               leadershipChanged: @escaping @Sendable (Bool) -> Void) {
        let thread = Thread { [self] in
            run(store: store, logger: logger, round: round, leadershipChanged: leadershipChanged)
        }
        thread.name = "flagserver-cluster"
        thread.start()
    }

    /// Stops the thread after its current round (at most `interval`) and releases the lease.
    func stop() {
        state.withLock { $0.stopping = true }
        // Wakes a round that sleeps after a failure (the database away); a round waiting for notifications ends
        // within `interval`.
        state.broadcast()
        state.wait(until: { $0.finished }) { _ in }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func run(store: FlagStore, logger: ServiceLogger, round: @Sendable (StoreListener.Heard) -> Void,
                     leadershipChanged: @Sendable (Bool) -> Void) {
        var listener: StoreListener?
        var lease: JobLease?
        var server: String?
        defer {
            listener?.close()
            lease?.close()
            state.withLock { $0.finished = true }
            state.broadcast()
        }
        while !isStopping {
            var heard = StoreListener.Heard(reconnected: true)
            do {
                if listener == nil { listener = try store.makeListener() }
                if lease == nil { lease = try store.makeJobLease() }
                heard = try listener?.wait(timeout: interval) ?? heard
                if let now = listener?.server, now != server {
                    // Which host of a multi-host URI answers as the primary (after a failover: the promoted standby).
                    logger.log(.info, "database_connected", ["server": now])
                    server = now
                }
            } catch {
                logger.log(.warning, "cluster_sync_failed", ["error": "\(error)"])
                // Connections are made again at the next round; do not spin while the database is away.
                state.wait(until: { $0.stopping }, deadline: MonotonicClock.nanoseconds() + MonotonicClock.nanoseconds(interval)) { _, _ in }
            }
            if isStopping { return }
            round(heard)
            let leading = lease?.renew() ?? false
            if leadership.update(leading) {
                logger.log(.info, leading ? "jobs_lease_taken" : "jobs_lease_lost")
                leadershipChanged(leading)
            }
        }
    }
}

extension FlagService {
    /// PostgreSQL: starts the node's `ClusterSync`; the jobs (scheduler, webhook deliveries) wait for the lease.
    func startClusterSync() {
        cluster.start(store: store, logger: logger, round: { [weak self] heard in self?.syncWithStore(heard) },
                      leadershipChanged: { [weak self] leading in
            guard let self else { return }
            // The dispatcher's thread is woken by the reload and sends, or stops sending, with the flag.
            webhooks.reloadReceivers()
            if leading { scheduler.wake() }
        })
    }

    /// Makes this node's memory what the database says: newer versions published by other nodes
    /// (`WriteQueue.catchUpWithStore`), tokens, policies and webhook receivers. The node running the jobs looks at
    /// the changes at once when another node recorded or decided one (a schedule made there must be applied at its
    /// time, not at this scheduler's next idle pass, up to `ChangeScheduler.idleCap` later), or when notifications may
    /// have been missed.
    func syncWithStore(_ heard: StoreListener.Heard = StoreListener.Heard()) {
        if heard.changes || heard.reconnected, cluster.leadership.isLeading { scheduler.wake() }
        writer.catchUpWithStore()
        let now = ServiceMetrics.monotonicNanoseconds()
        guard heard.reconnected || heard.changes || now >= cluster.nextReload.load(ordering: .relaxed) else { return }
        cluster.nextReload.store(now &+ MonotonicClock.nanoseconds(cluster.interval), ordering: .relaxed)
        do {
            try authenticator.reload()
            try policies.load(from: store)
        } catch {
            logger.log(.warning, "cluster_reload_failed", ["error": "\(error)"])
        }
        webhooks.reloadReceivers()
    }
}
