import FlagStore
import Synchronization

/// Whether this node runs the jobs that must run once (scheduled changes, request expiry and stale marking, webhook
/// deliveries): the one flag the scheduler's pass (`ScheduledJobs`) and the webhook dispatcher read.
///
/// One process owns a single-process store, so it always leads. On a shared store the node leads while it holds the
/// jobs' lease (`JobLease`); `ClusterNode` is the only writer of the flag, once a round.
final class Leadership: Sendable {
    /// True when nothing can take leadership away: one process owns the store.
    let isPermanent: Bool
    private let leading: Atomic<Bool>

    /// Leading for good on a single-process store; on a shared one not until `ClusterNode` takes the lease.
    init(_ topology: StoreTopology = .singleProcess) {
        isPermanent = topology == .singleProcess
        leading = Atomic(isPermanent)
    }

    /// Whether this node runs the jobs now.
    var isLeading: Bool { leading.load(ordering: .acquiring) }

    /// Sets the flag from the lease's renewal; true when it changed. Never called on a single-process store.
    func update(_ leads: Bool) -> Bool {
        leading.exchange(leads, ordering: .acquiringAndReleasing) != leads
    }
}
