import FlagStore
import Synchronization

/// Whether this node can reach the shared database, and since when it could not: what the document GET's
/// `Flagserver-Database-Unreachable-Seconds`, `/metrics`' `flagserver_database_unreachable_seconds` and `/readyz`
/// report (`docs/deploy.md`, "Partitions").
///
/// The cluster round confirms each catch-up that read the database's newest versions (`confirm`): the node's snapshots
/// were then what the database had. A catch-up that failed (`lose`) makes the node unreachable at once; so does a
/// catch-up that has not come back for `patience` (a database or a link that hangs rather than refuses: the round
/// waits in its read). While unreachable, the node still serves its snapshots; the seconds say how long ago they were
/// last known to be current, which is what a client can weigh them by. A node that never confirmed (one process on
/// SQLite, where nothing else writes the versions) is never unreachable.
final class DatabaseReachability: Sendable {
    /// Monotonic nanoseconds at the start of the last read that succeeded (the snapshots were current at least then);
    /// 0 before the first.
    private let confirmedAt = Atomic<UInt64>(0)
    /// The last catch-up failed.
    private let failed = Atomic<Bool>(false)
    /// How long a catch-up may take before the node counts the database as unreachable without an error.
    let patience: UInt64

    /// A record in which a catch-up that does not come back within `patience` counts as unreachable.
    init(patience: Duration) {
        self.patience = MonotonicClock.nanoseconds(patience)
    }

    /// A catch-up that started at `startedAt` (monotonic nanoseconds) read the database's newest versions.
    func confirm(startedAt: UInt64) {
        confirmedAt.store(startedAt, ordering: .releasing)
        failed.store(false, ordering: .releasing)
    }

    /// A catch-up could not read the database.
    func lose() {
        failed.store(true, ordering: .releasing)
    }

    /// Whole seconds since the snapshots were last confirmed, while the node cannot reach the database; nil while it
    /// can (or never could: a single process). Asked by every document GET: one atomic load on a single process, a
    /// clock read and a second load on a shared store.
    func unreachableSeconds(now: UInt64? = nil) -> Int? {
        let confirmed = confirmedAt.load(ordering: .acquiring)
        guard confirmed > 0 else { return nil }
        let now = now ?? MonotonicClock.nanoseconds()
        let age = now > confirmed ? now - confirmed : 0
        guard failed.load(ordering: .acquiring) || age > patience else { return nil }
        return Int(age / 1_000_000_000)
    }
}
