import FlagStore

/// The one decision about a write that another node's commit overtook: under its write lock the store found a newer
/// head than the version the write was built on (`FlagStoreError.versionConflict`, or the rebuild callbacks of
/// `FlagStore.publish(batch:audit:rebase:)` and `FlagStore.rollback(...allowedOn:)`). The writer's group commit
/// (`WriteQueue.flush`), its batches (`process`), rollbacks and the changes it records instead of publishing all ask
/// here, and only here, whether to build the write again on the newest version under the lock, hand it back to be
/// taken again after a catch-up, or answer it: `503 busy` when it asked for no precondition (a 412 would answer a
/// question it did not ask), else the store's 412.
///
/// Only a shared store has other nodes. A write is handed back at most `retries` times: a node that catches up and then
/// waits for the write lock while the others commit can find them ahead again, so nodes writing all the time need
/// several tries (Benchmarks/postgres-cluster.sh, three nodes flipping one flag flat out). A write without a
/// precondition is rebuilt under the lock first, so only those that need approval on the newest version, or whose edit
/// fails there, come back. Applying an approved or scheduled change is always decided again under the lock
/// (`WriteQueue.applyChange`): no other node can come first twice, so it is never handed back.
struct Overtaking: Sendable, Equatable {
    /// What becomes of a write the store refused because another node came first.
    enum Answer: Sendable, Equatable {
        /// Not answered yet: taken again on the newest version after a catch-up (with `next`).
        case handBack
        /// `503 busy` with `Retry-After: 1`: other nodes kept committing first, and the write sent no precondition.
        case busy
        /// The store's refusal, a 412: the write's precondition is its answer.
        case refuse
    }

    /// How many times a write is handed back before it is answered.
    static let retries = 7

    /// Whether other nodes share the store.
    let shared: Bool
    /// How many more times a write may be handed back.
    let retriesLeft: Int

    /// A write's first try on a store of `topology`.
    init(_ topology: StoreTopology) {
        self.init(shared: topology == .shared, retriesLeft: Self.retries)
    }

    private init(shared: Bool, retriesLeft: Int) {
        self.shared = shared
        self.retriesLeft = retriesLeft
    }

    /// The next try of a write that was handed back.
    var next: Overtaking { Overtaking(shared: shared, retriesLeft: retriesLeft - 1) }

    /// Whether a group commit lets the store build its publishes again under the write lock at all: only where another
    /// node can come first (on one process the commit then carries no rebuild closure).
    var rebuildsUnderLock: Bool { shared }

    /// Whether `job` may be built again on the newest version under the write lock: only a write without a
    /// precondition, whose client did not say which version it meant. What is built is published there when it needs no
    /// approval on that version and its edit applies (the caller's check: it knows the policies).
    static func mayRebuild(_ job: WriteJob) -> Bool { job.precondition == .none }

    /// A publish of a group commit that the store refused because another node came first.
    func publishRefused(_ job: WriteJob) -> Answer {
        if shared && retriesLeft > 0 { return .handBack }
        return Self.mayRebuild(job) ? .busy : .refuse
    }

    /// A rollback the store refused because another node came first (without a precondition, its rebuild under the lock
    /// declined: it needs approval on the newest version). One process has no other node whose version a catch-up
    /// would bring: the refusal is the answer.
    func rollbackRefused(_ job: WriteJob) -> Answer {
        guard shared, Self.mayRebuild(job) else { return .refuse }
        return retriesLeft > 0 ? .handBack : .busy
    }
}
