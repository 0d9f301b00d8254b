import FlagKit
import FlagStore

/// Building a group commit from queued jobs, on SQLite and on PostgreSQL where other nodes write too.
extension WriteQueue {
    /// PostgreSQL: how many times the jobs whose request found another node's version are taken again on the newest
    /// (`process`), each after a catch-up. Once covers a node that had not installed another node's version yet;
    /// nodes writing all the time need more, since the catch-up happens before the write lock and while a node waits
    /// for the lock the others commit (Benchmarks/postgres-cluster.sh, three nodes flipping one flag flat out: 62 %
    /// of bare PUTs refused with no retry, none with seven, 3-5 % then answered `503 busy`). After the last retry a job
    /// with `If-Match` gets the 412 of two nodes racing on one ETag, a bare one `503 busy` (`flush`). Since session 10
    /// a bare write is built again under the lock, inside the store's transaction (`flush`'s rebase), so only bare
    /// writes that need approval on the newest version (or whose edit fails there) come back here.
    static let rebaseRetries = 7

    /// The version a job in the batch builds on: the installed snapshot, or what an earlier job produces.
    struct Base {
        var document: FlagDocument?
        var version: Int
        /// Canonical bytes of `document` (compared instead of hashing: same bytes, same content).
        var bytes: [UInt8]?
        /// The content hash of `bytes`: the snapshot's, or computed when a later job needs it (`etag`, or the
        /// expected hash of a chained request on PostgreSQL).
        var hash: String?
        var etag: String?
    }

    /// Applies `jobs` in order: preconditions and edits against the running `Base`, one group commit for
    /// the document and flag writes, rollbacks and change jobs alone (they read the store inside their own
    /// transaction, or record a change). A write that touches a protected flag is recorded as a change request
    /// instead of joining the batch, decided here, in queue order, against the version it would change.
    /// `audit` lines go into the first group commit, or into a transaction of their own when there is none.
    ///
    /// Several nodes (PostgreSQL): the batch builds on this node's snapshots without asking the database first:
    /// other nodes' versions reach them through `ClusterNode` within milliseconds of their commit, so asking
    /// before every batch would cost a round trip to learn, nearly always, that nothing changed. The store
    /// checks each request's expected version and content hash under the write lock instead; requests that find
    /// the database ahead of their base (`versionConflict`) are not answered but taken again, after
    /// `node.catchUp()`, followed by the jobs not yet handled. Another node may commit again between that catch-up
    /// and this writer's lock: up to `rebaseRetries` times the conflicting jobs are taken again so, then a conflict is
    /// the answer (412 with `If-Match`, as between two nodes racing on one ETag; `503 busy` without, see `flush`; a job
    /// with `If-Match` that no longer matches gets its 412 from the precondition check at once). Decisions made on the base outside the group commit (a refused
    /// precondition, an unknown environment, a refused edit such as an unknown flag, a change request, a rollback, a change
    /// job) catch up first, once per
    /// call: they are rare, and a stale base would decide them wrongly.
    func process(_ jobs: [WriteJob], audit: [AuditRecord] = [], caughtUp: Bool = false, retries: Int = WriteQueue.rebaseRetries) {
        var audit = audit
        defer { writeAudit(audit) }
        var caughtUp = caughtUp || !node.isShared
        var pending: [String: Base] = [:]
        var batch: [(job: WriteJob, request: PublishRequest, document: FlagDocument)] = []
        // Jobs the database was ahead of, to take again after catching up (then the jobs from `index` on).
        var handedBack: [WriteJob] = []
        var index = 0
        // Why this call's catch-up failed (the database away): a refusal decided on the stale base would be wrong
        // (a flag another node just created is not unknown), so such jobs get the store's error (503) instead.
        var catchUpFailures = CatchUpFailures()

        /// Commits the batch so far and, on PostgreSQL the first time in this call or when the commit handed jobs back,
        /// installs what other nodes published. False when it handed jobs back: the loop stops and they are taken again.
        func settle() -> Bool {
            handedBack = flush(&batch, audit: &audit, handBackConflicts: node.isShared && retries > 0)
            pending = [:]
            if !caughtUp || !handedBack.isEmpty {
                catchUpFailures = node.catchUp()
                caughtUp = true
            }
            return handedBack.isEmpty
        }

        jobs: while index < jobs.count {
            let job = jobs[index]
            let environment = job.environment
            guard snapshots.contains(environment) else {
                // Perhaps created by another node a moment ago.
                if !caughtUp {
                    guard settle() else { break jobs }
                    continue jobs
                }
                job.completion(.failed(catchUpFailures.error(for: environment).map(ServiceError.store) ?? .unknownEnvironment(environment, known: snapshots.environments)))
                index += 1
                continue
            }
            switch job.kind {
            case .document, .flag:
                break
            case .rollback(let number):
                guard settle() else { break jobs }
                rollback(job, to: number)
                index += 1
                continue
            case .schedule, .applyChange:
                // A change's base must be a committed version, and applying one reads the store.
                guard settle() else { break jobs }
                runChangeJob(job)
                index += 1
                continue
            }
            let chained = pending[environment] != nil
            var base = pending[environment] ?? current(environment)
            if job.precondition != .none, base.etag == nil, let bytes = base.bytes {
                // A version pending in this batch: its tag is needed only now, so hash only now.
                let hash = base.hash ?? FlagStore.contentHash(bytes)
                base.hash = hash
                base.etag = VersionMetadata.entityTag(version: base.version, contentHash: hash)
                pending[environment] = base
            }
            if let refusal = Self.check(job.precondition, etag: base.etag, version: base.version) {
                // The client may have read a version from another node that this one has not installed yet.
                if !caughtUp {
                    guard settle() else { break jobs }
                    continue jobs
                }
                job.completion(.failed(catchUpFailures.error(for: environment).map(ServiceError.store) ?? refusal))
                index += 1
                continue
            }
            let document: FlagDocument
            do {
                document = try Self.proposedDocument(job, base: base.document)
            } catch {
                // Perhaps the flag was created by another node a moment ago (`unknown_flag` on a stale base).
                if !caughtUp {
                    guard settle() else { break jobs }
                    continue jobs
                }
                job.completion(.failed(catchUpFailures.error(for: environment).map(ServiceError.store) ?? error))
                index += 1
                continue
            }
            let bytes = document.canonicalBytes
            if bytes != base.bytes, needsApproval(job, base: base.document, proposed: document) {
                // `propose` decides again against the version current once the batch is committed (and caught up).
                guard settle() else { break jobs }
                propose(job)
                index += 1
                continue
            }
            if node.isShared, base.hash == nil, let bytes = base.bytes {
                // Chained on a version pending in this batch: name it exactly (`PublishRequest.expectedCurrentHash`).
                base.hash = FlagStore.contentHash(bytes)
                pending[environment] = base
            }
            let target: String? = if case .flag(let key, _) = job.kind { key } else { nil }
            batch.append((job, PublishRequest(environment: environment, document: bytes, author: job.author, message: job.message,
                                              expectedCurrentVersion: base.version,
                                              expectedCurrentHash: node.isShared ? base.hash : nil,
                                              target: target, client: job.client, chainedOnPrevious: chained), document))
            // Equal bytes: the store will answer `.unchanged` and the version stays; otherwise it advances.
            // Its ETag (and hash) is computed only if a later job in this batch needs it.
            if bytes != base.bytes {
                pending[environment] = Base(document: document, version: base.version + 1, bytes: bytes, hash: nil, etag: nil)
            }
            index += 1
        }
        if index == jobs.count {
            handedBack = flush(&batch, audit: &audit, handBackConflicts: node.isShared && retries > 0)
            if !handedBack.isEmpty { node.catchUp() }
        }
        // Otherwise the loop stopped at `index` after `settle()`, which caught up.
        guard !handedBack.isEmpty else { return }
        metrics.publishRetries.add(handedBack.count, ordering: .relaxed)
        process(handedBack + jobs[index...], caughtUp: true, retries: retries - 1)
    }
}
