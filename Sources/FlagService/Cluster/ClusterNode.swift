import Dispatch
import FlagStore
import Foundation
import ServerLock
import Synchronization

/// This node among the others that share its store (`docs/scaling.md`): the one owner of what several nodes need.
///
/// - **Replication** (`ClusterNode+CatchUp.swift`): other nodes' versions installed and announced (`catchUp`), a served
///   version the database lost replaced by the database's, and this node's writer installing its own versions through
///   the same lock (`install`). The writer calls only `install` and `catchUp`.
/// - **Leadership**: the jobs' lease (`JobLease`) renewed each round sets `Leadership`, which the scheduler's pass and
///   the webhook dispatcher read.
/// - **Reloads**: tokens, policies and webhook receivers, which other nodes change without a notification.
///
/// On a shared store (PostgreSQL) a thread waits up to `interval` (default 1 s) each round for another node's publish or
/// change (`StoreListener`, LISTEN/NOTIFY: at once), then catches up (notifications are lost when a connection drops or
/// the primary changes; the comparison is not), wakes the scheduler of the leading node when a change was recorded
/// elsewhere, reloads the three tables at most once an `interval` (and after a reconnect or a change), and renews the
/// lease. On a single-process store (SQLite) nothing else writes versions or holds a lease: the node only reloads the
/// token table every `tokenRefreshInterval` (`flagserver token create` writes the file while the server runs).
final class ClusterNode: Sendable {
    let store: FlagStore
    let snapshots: SnapshotStore
    let events: EventHub
    let scheduler: ChangeScheduler
    let logger: ServiceLogger
    /// Whether this node runs the jobs; set here only.
    let leadership: Leadership
    /// Whether other nodes share the store (asked once: the writer's `install` reads it on every commit).
    let isShared: Bool
    /// Shared store: how long a round waits for a notification before it compares anyway, and the least time between
    /// two reloads of the tables.
    let interval: Duration
    /// Single process: how often the token table is read again.
    let tokenRefreshInterval: Duration
    /// Shared store: one installer at a time for the writer's and the other nodes' versions.
    let announcing = PThreadMutex(())
    /// How many times `catchUp()` asked the database for other nodes' versions (each round, and the writer when the
    /// database was ahead of its base or before a rare decision), for the tests, which check that the writer does
    /// not ask before every batch.
    let catchUps = Atomic<Int>(0)
    /// When (monotonic nanoseconds) the round next reloads the tables: at most once an `interval`. A round woken only by
    /// published versions (every commit of every node notifies) catches up and leaves them.
    let nextReload = Atomic<UInt64>(0)
    /// Whether the last catch-up reached the database, and when one last did (the staleness that reads report).
    let reachability: DatabaseReachability
    private let state = PThreadCondition((stopping: false, finished: false, started: false))
    private let refreshStopped = Atomic<Bool>(false)

    /// A node over `store`, installing into `snapshots` and announcing on `events` and to `scheduler`. Call `start`.
    init(store: FlagStore, snapshots: SnapshotStore, events: EventHub, scheduler: ChangeScheduler, logger: ServiceLogger,
         leadership: Leadership? = nil, interval: Duration = .seconds(1), tokenRefreshInterval: Duration = .seconds(2)) {
        self.store = store
        self.snapshots = snapshots
        self.events = events
        self.scheduler = scheduler
        self.logger = logger
        isShared = store.topology == .shared
        self.leadership = leadership ?? Leadership(store.topology)
        self.interval = interval
        self.tokenRefreshInterval = tokenRefreshInterval
        // A round waits up to `interval` for a notification, then catches up: two rounds and three seconds more
        // without a catch-up coming back is a database that hangs, not a busy one.
        reachability = DatabaseReachability(patience: interval * 2 + .seconds(3))
    }

    /// What the node reads again because something outside this process changes it.
    struct Tables: Sendable {
        let authenticator: Authenticator
        let policies: PolicyTable
        let webhooks: WebhookDispatcher
    }

    /// Shared store: starts the round's thread; the jobs wait for the lease. Single process: starts the token table's
    /// timer.
    func start(_ tables: Tables) {
        guard isShared else { return refreshTokens(tables.authenticator) }
        state.withLock { $0.started = true }
        let thread = Thread { [self] in run(tables) }
        thread.name = "flagserver-cluster"
        thread.start()
    }

    /// Stops the timer, or the thread after its current round (at most `interval`), releasing the lease.
    func stop() {
        refreshStopped.store(true, ordering: .releasing)
        let started = state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        guard started else { return }
        // Wakes a round that sleeps after a failure (the database away); a round waiting for notifications ends
        // within `interval`.
        state.broadcast()
        state.wait(until: { $0.finished }) { _ in }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func run(_ tables: Tables) {
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
            round(heard, tables)
            let leading = lease?.renew() ?? false
            if leadership.update(leading) {
                logger.log(.info, leading ? "jobs_lease_taken" : "jobs_lease_lost")
                // The dispatcher's thread is woken by the reload and sends, or stops sending, with the flag.
                tables.webhooks.reloadReceivers()
                if leading { scheduler.wake() }
            }
        }
    }

    /// Makes this node's memory what the database says: newer versions published by other nodes (`catchUp`), tokens,
    /// policies and webhook receivers. The leading node looks at the changes at once when another node recorded or
    /// decided one (a schedule made there must be applied at its time, not at this scheduler's next idle pass, up to
    /// `ChangeScheduler.idleCap` later), or when notifications may have been missed.
    func round(_ heard: StoreListener.Heard, _ tables: Tables) {
        if heard.changes || heard.reconnected, leadership.isLeading { scheduler.wake() }
        catchUp()
        let now = MonotonicClock.nanoseconds()
        guard heard.reconnected || heard.changes || now >= nextReload.load(ordering: .relaxed) else { return }
        nextReload.store(now &+ MonotonicClock.nanoseconds(interval), ordering: .relaxed)
        do {
            try tables.authenticator.reload()
            try tables.policies.load(from: store)
        } catch {
            logger.log(.warning, "cluster_reload_failed", ["error": "\(error)"])
        }
        tables.webhooks.reloadReceivers()
    }

    /// Single process: reloads the token table every `tokenRefreshInterval` until `stop()`.
    private func refreshTokens(_ authenticator: Authenticator) {
        let milliseconds = max(10, Int(clamping: MonotonicClock.nanoseconds(tokenRefreshInterval) / 1_000_000))
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in
            guard let self, !refreshStopped.load(ordering: .acquiring) else { return }
            do {
                try authenticator.reload()
            } catch {
                logger.log(.warning, "token_reload_failed", ["error": "\(error)"])
            }
            refreshTokens(authenticator)
        }
    }
}
