import FlagKit
import FlagStore
import Foundation
import Glibc
import HTTPServer
import ServerLock

/// The ONE writer, a group committer: a dedicated thread that owns every publish, so writes are serialized and
/// the event loops never wait for an fsync. Handlers enqueue a `WriteJob` and return; the job's completion answers
/// the request after the commit is durable and the new snapshot is installed.
///
/// Group commit: the thread takes every job queued while the previous commit was in flight and writes
/// them with one `publish(batch:)` (one fsync). Jobs are applied in arrival order; each is checked and
/// computed against the version the jobs before it produce, exactly as if they had run one by one.
///
/// Other nodes are not its business: it installs its versions and catches up through `ClusterNode` (`install`,
/// `catchUp`), and what becomes of a write another node's commit overtook is `Overtaking`'s decision.
///
/// Refusals' audit lines (`recordAudit`) ride along: they are written in the next group commit, or, when no
/// write comes, in a transaction of their own once they have gathered briefly (`WriteQueue+Audit.swift`).
public final class WriteQueue: Sendable {
    /// What the handlers and the writer thread share.
    struct Queue: Sendable {
        var jobs: [WriteJob] = []
        /// Audit lines of refusals waiting for a commit, at most `auditCapacity`.
        var audit: [AuditRecord] = []
        /// Lines dropped (the capacity was reached) since the writer last took the lines, for its log line.
        var auditDropped = 0
        var stopping = false
        var finished = false
    }

    /// What the writer thread takes for one commit.
    struct Work {
        var jobs: [WriteJob]
        var audit: [AuditRecord]
        var auditDropped: Int
    }

    let queue = PThreadCondition(Queue())
    let store: FlagStore
    let snapshots: SnapshotStore
    let metrics: ServiceMetrics
    let logger: ServiceLogger
    /// Every environment's policy: whether a write needs a second person.
    let policies: PolicyTable
    /// Woken when a change is recorded and after every version (pending requests may have become stale).
    let scheduler: ChangeScheduler
    /// Told of every version too (`version.published`), after the event streams.
    let webhooks: WebhookDispatcher?
    /// Most jobs written in one commit.
    let maximumBatch: Int
    /// The last commit's failure, for `/readyz`.
    public let health = WriteHealth()
    /// Installs the writer's versions and catches up with other nodes' (`install`, `catchUp`: all the writer asks of it).
    let node: ClusterNode
    /// What becomes of a write's first try when another node came first.
    let firstTry: Overtaking

    /// A queue writing to `store` and installing new versions into `snapshots`, announced on `events` (through `node`;
    /// by default a node of its own that is never started). Call `start()`.
    init(store: FlagStore, snapshots: SnapshotStore, metrics: ServiceMetrics, logger: ServiceLogger, maximumBatch: Int = 256,
         events: EventHub = EventHub(), webhooks: WebhookDispatcher? = nil, policies: PolicyTable = PolicyTable(),
         scheduler: ChangeScheduler = ChangeScheduler(), node: ClusterNode? = nil) {
        self.webhooks = webhooks
        self.policies = policies
        self.scheduler = scheduler
        self.store = store
        self.snapshots = snapshots
        self.metrics = metrics
        self.logger = logger
        self.maximumBatch = max(1, maximumBatch)
        self.node = node ?? ClusterNode(store: store, snapshots: snapshots, events: events, scheduler: scheduler, logger: logger)
        firstTry = Overtaking(store.topology)
    }

    /// Starts the writer thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "flagserver-writer"
        thread.start()
    }

    /// Queues `job`; a queue that is stopping answers 503 at once.
    public func submit(_ job: WriteJob) {
        let accepted = queue.withLock { queue in
            guard !queue.stopping else { return false }
            queue.jobs.append(job)
            return true
        }
        guard accepted else {
            job.completion(.failed(ServiceError(.serviceUnavailable, code: "shutting_down", message: "the server is stopping")))
            return
        }
        queue.signal()
    }

    /// Finishes every queued job, then stops the thread; returns when it has.
    public func stop() {
        queue.withLock { $0.stopping = true }
        queue.broadcast()
        queue.wait(until: { $0.finished }) { _ in }
    }

    /// The writer's nice value: the loops' own (0). The writer is the one serial stage of every flip, so its
    /// share of the CPU bounds flips per second: a higher nice value gives it a fraction of a loop's weight, and with
    /// the loops, the work queue and a load generator runnable it then spends most of a flip waiting in the run queue
    /// (`/proc/PID/task/TID/schedstat` shows it); a lower one makes every commit preempt the loops. Reads stay fast by
    /// keeping the writer's work per commit small instead (OFREP answers built on first use, the old snapshot freed
    /// outside the lock GETs take). Measurements: Benchmarks/RESULTS.md, "Write path".
    static let writerNice: Int32 = 0

    private func run() {
        // On Linux, nice is per thread and `who` 0 means the calling thread (setpriority(2), BUGS). Raising
        // one's own nice needs no privilege; if it fails anyway the writer simply runs at the loops' priority.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.writerNice)
        while true {
            // nil: stopping with nothing left to write.
            guard let work = nextWork() else {
                queue.broadcast()
                return
            }
            if work.auditDropped > 0 {
                logger.log(.warning, "audit_dropped", ["lines": "\(work.auditDropped)", "capacity": "\(Self.auditCapacity)"])
            }
            // Notifications touch no document: stored together in one transaction of their own, before the
            // publishes of the same take, which they cannot affect.
            var jobs = work.jobs
            if jobs.contains(where: \.isNotification) {
                storeNotifications(jobs.filter(\.isNotification))
                jobs.removeAll(where: \.isNotification)
            }
            if jobs.isEmpty {
                writeAudit(work.audit)
            } else {
                process(jobs, audit: work.audit)
            }
        }
    }

    /// Up to `maximumBatch` jobs and every waiting audit line; nil once stopping with nothing left. Audit lines
    /// alone are taken only after they have gathered for `auditGatherNanoseconds` (or reached
    /// `auditFlushCount`, or a job came): a burst of refusals shares one commit.
    func nextWork() -> Work? {
        let gather = queue.wait(until: { !$0.jobs.isEmpty || !$0.audit.isEmpty || $0.stopping }) { queue in
            queue.jobs.isEmpty && !queue.stopping && queue.audit.count < Self.auditFlushCount
        }
        if gather {
            let deadline = ServiceMetrics.monotonicNanoseconds() + Self.auditGatherNanoseconds
            return queue.wait(until: { !$0.jobs.isEmpty || $0.stopping || $0.audit.count >= Self.auditFlushCount },
                              deadline: deadline) { queue, _ in take(&queue) }
        }
        return queue.withLock { take(&$0) }
    }

    private func take(_ queue: inout Queue) -> Work? {
        if queue.jobs.isEmpty && queue.audit.isEmpty {
            guard queue.stopping else { return Work(jobs: [], audit: [], auditDropped: 0) }
            queue.finished = true
            return nil
        }
        let count = min(queue.jobs.count, maximumBatch)
        let work = Work(jobs: Array(queue.jobs.prefix(count)), audit: queue.audit, auditDropped: queue.auditDropped)
        queue.jobs.removeFirst(count)
        queue.audit = []
        queue.auditDropped = 0
        return work
    }

    /// The document a `.document` or `.flag` job proposes against `base`.
    static func proposedDocument(_ job: WriteJob, base: FlagDocument?) throws(ServiceError) -> FlagDocument {
        switch job.kind {
        case .document(let given): return given
        case .flag(let key, let edit): return try edit.apply(to: base, key: key)
        case .rollback, .schedule, .applyChange, .notification:
            throw ServiceError(.internalServerError, code: "internal", message: "internal error")
        }
    }

    func current(_ environment: String) -> Base {
        guard let snapshot = snapshots.snapshot(environment) else { return Base(document: nil, version: 0) }
        return Base(document: snapshot.document, version: snapshot.version, bytes: snapshot.record.document,
                    hash: snapshot.record.contentHash, etag: snapshot.etag)
    }

    /// 412 when the precondition fails against `etag` (nil: no version yet), with the current ETag header and,
    /// like the store's own conflict, `currentVersion` in the body (0: no version yet).
    static func check(_ precondition: WriteJob.Precondition, etag: String?, version: Int) -> ServiceError? {
        switch precondition {
        case .none:
            return nil
        case .ifMatch(let fields):
            // Either representation's tag of the current version (identity or gzip, Snapshot) names it.
            if HTTPEntityTagList.ifMatch(fields, matches: etag)
                || HTTPEntityTagList.ifMatch(fields, matches: etag.map(VersionMetadata.gzipEntityTag(ofIdentityTag:))) {
                return nil
            }
            var error = ServiceError(.preconditionFailed, code: "precondition_failed",
                                     message: "If-Match does not match the current version"
                                         + (etag.map { " (current ETag \($0))" } ?? " (the environment has no version yet)"),
                                     extra: ["currentVersion": .integer(Int64(version))])
            if let etag { error.headers.add(name: .eTag, value: etag) }
            return error
        case .ifNoneMatchAny:
            guard let etag else { return nil }
            return ServiceError(.preconditionFailed, code: "precondition_failed",
                                message: "If-None-Match: * but the environment has a version (ETag \(etag))",
                                extra: ["currentVersion": .integer(Int64(version))], headers: [.eTag: etag])
        }
    }
}
