import Foundation
import ServerLock
import Synchronization

/// The thread that publishes changes at their time (`docs/governance.md`, "Scheduled changes"): it sleeps
/// until the earliest thing that is due, runs one **pass** (FlagService's: expire requests, mark stale ones,
/// hand due changes to the writer), and sleeps again.
///
/// The thread only keeps time; what a pass does is the closure given to `start`, and the writer does every
/// write in queue order. Sleeping is a timed wait on `PThreadCondition` (the server's one lock type), so a new,
/// approved or cancelled change, a published version (pending requests may have become stale) and the end of
/// an in-flight change wake it at once; no wait is longer than `dueCap` while anything waits for a time (a
/// wall-clock step is noticed within a second), nor longer than `idleCap` when nothing does (a change written
/// to the database by another process is found within a minute).
public final class ChangeScheduler: Sendable {
    /// What a pass decided.
    public struct Outcome: Sendable, Equatable {
        /// The earliest time (milliseconds since 1970 UTC) something is due next; nil when nothing waits.
        public var nextDue: Int64?
        /// Whether any change request is pending (then a publish wakes the scheduler to check staleness).
        public var pendingRequests = false

        /// An outcome; see each property.
        public init(nextDue: Int64? = nil, pendingRequests: Bool = false) {
            self.nextDue = nextDue
            self.pendingRequests = pendingRequests
        }
    }

    struct State: Sendable {
        var woken = false
        var stopping = false
        var running = false
        var published: Set<String> = []
        /// Changes handed to the writer and not finished yet.
        var inFlight: Set<Int64> = []
    }

    /// The longest sleep while something waits for a time: a changed wall clock is noticed within it.
    public static let dueCap: Int64 = 1_000
    /// The longest sleep while nothing waits at all.
    public static let idleCap: Int64 = 60_000

    private let state = PThreadCondition(State())
    /// Read by the writer after every version (`versionPublished`): only while requests are pending does a
    /// publish wake this thread, so a flip in an environment without requests costs one atomic load.
    private let watchingPublishes = Atomic<Bool>(false)
    private let clock: @Sendable () -> Int64

    /// A scheduler reading the time from `clock` (milliseconds since 1970 UTC). Call `start`.
    public init(clock: @escaping @Sendable () -> Int64 = ChangeScheduler.wallClock) {
        self.clock = clock
    }

    /// The system's wall clock in milliseconds since 1970 UTC (the clock `applyAt` is written in).
    public static func wallClock() -> Int64 { ServiceMetrics.wallMilliseconds() }

    /// How long to sleep (milliseconds) at `now` when the next thing is due at `nextDue`: until then, at most
    /// `dueCap`; `dueCap` when it is already due (it is in flight: its end wakes the thread); `idleCap` when
    /// nothing waits.
    public static func sleepMilliseconds(now: Int64, nextDue: Int64?) -> Int64 {
        guard let nextDue else { return idleCap }
        let until = nextDue - now
        return until <= 0 ? dueCap : min(until, dueCap)
    }

    /// Starts the thread, which runs `pass` at once and then whenever something is due or it is woken. The pass
    /// is given the environments that published a version since the last one (their pending requests may
    /// have become stale); the first pass `initiallyPublished` (at start: all of them).
    public func start(initiallyPublished: Set<String> = [], _ pass: @escaping @Sendable (_ published: Set<String>) -> Outcome) {
        let started = state.withLock { state -> Bool in
            guard !state.running, !state.stopping else { return false }
            state.running = true
            state.published.formUnion(initiallyPublished)
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in run(pass) }
        thread.name = "flagserver-scheduler"
        thread.start()
    }

    /// Makes the thread run a pass now (a change was created, approved or cancelled).
    public func wake() {
        state.withLock { $0.woken = true }
        state.signal()
    }

    /// A change request was recorded: from now on every publish wakes the thread (the pass that follows
    /// would say so too, but a publish in between must not go unnoticed).
    public func requestRecorded() {
        watchingPublishes.store(true, ordering: .relaxed)
        wake()
    }

    /// The writer published a version of `environment`: pending requests there may have become stale.
    func versionPublished(_ environment: String) {
        guard watchingPublishes.load(ordering: .relaxed) else { return }
        state.withLock { state in
            state.published.insert(environment)
            state.woken = true
        }
        state.signal()
    }

    /// Marks change `id` as handed to the writer; false when it already is (then the pass must not hand it
    /// over again: the writer would find it applied, but a due change must not be queued once per pass).
    public func claim(_ id: Int64) -> Bool {
        state.withLock { $0.inFlight.insert(id).inserted }
    }

    /// The writer is done with change `id` (claimed by a pass). After a success the thread runs a pass at once
    /// (the next change may be due); after a failure (the store failed, the change is still owed) the next
    /// pass comes at its usual time, so a failing disk is not retried in a tight loop.
    public func finished(_ id: Int64, succeeded: Bool) {
        state.withLock { state in
            state.inFlight.remove(id)
            if succeeded { state.woken = true }
        }
        state.signal()
    }

    /// Stops the thread after its current pass; returns when it has.
    public func stop() {
        state.withLock { $0.stopping = true }
        state.broadcast()
        state.wait(until: { !$0.running }) { _ in }
    }

    private func run(_ pass: @Sendable (Set<String>) -> Outcome) {
        while let published = state.withLock({ state -> Set<String>? in
            guard !state.stopping else { return nil }
            defer { state.published = []; state.woken = false }
            return state.published
        }) {
            let outcome = pass(published)
            watchingPublishes.store(outcome.pendingRequests, ordering: .relaxed)
            let sleep = Self.sleepMilliseconds(now: clock(), nextDue: outcome.nextDue)
            state.wait(until: { $0.woken || $0.stopping },
                       deadline: ServiceMetrics.monotonicNanoseconds() + UInt64(max(sleep, 0)) * 1_000_000) { _, _ in }
        }
        state.withLock { $0.running = false }
        state.broadcast()
    }
}
