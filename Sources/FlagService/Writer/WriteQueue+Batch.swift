import FlagKit
import FlagStore

/// Building a group commit from queued jobs, on SQLite and on PostgreSQL where other nodes write too.
extension WriteQueue {
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
    /// Several nodes (a shared store): the batch builds on this node's snapshots without asking the database first:
    /// other nodes' versions reach them through `ClusterNode` within milliseconds of their commit, so asking before
    /// every batch would cost a round trip to learn, nearly always, that nothing changed. The store checks each
    /// request's expected version and content hash under the write lock instead; what becomes of the requests that find
    /// the database ahead of their base is `Overtaking`'s decision (`flush`): rebuilt there, or handed back and taken
    /// again here after a catch-up (`takeAgain`), followed by the jobs not yet handled, or answered. A job with
    /// `If-Match` that no longer matches gets its 412 from the precondition check at once. Decisions made on the base
    /// outside the group commit (a refused precondition, an unknown environment, a refused edit such as an unknown flag,
    /// a change request, a rollback, a change job) catch up first, once per call: they are rare, and a stale base would
    /// decide them wrongly. `overtaking`: nil for the jobs' first try.
    func process(_ jobs: [WriteJob], audit: [AuditRecord] = [], caughtUp: Bool = false, overtaking: Overtaking? = nil) {
        let overtaking = overtaking ?? firstTry
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

        /// Commits the batch so far and, on a shared store the first time in this call or when the commit handed jobs
        /// back, installs what other nodes published. False when it handed jobs back: the loop stops and they are taken
        /// again.
        func settle() -> Bool {
            handedBack = flush(&batch, audit: &audit, overtaking: overtaking)
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
            case .notification:
                // Taken out before (`run`); stored on its own if one comes this way.
                storeNotifications([job])
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
            if overtaking.shared, base.hash == nil, let bytes = base.bytes {
                // Chained on a version pending in this batch: name it exactly (`PublishRequest.expectedCurrentHash`).
                base.hash = FlagStore.contentHash(bytes)
                pending[environment] = base
            }
            let target: String? = if case .flag(let key, _) = job.kind { key } else { nil }
            batch.append((job, PublishRequest(environment: environment, document: bytes, author: job.author, message: job.message,
                                              expectedCurrentVersion: base.version,
                                              expectedCurrentHash: overtaking.shared ? base.hash : nil,
                                              target: target, client: job.client, chainedOnPrevious: chained), document))
            // Equal bytes: the store will answer `.unchanged` and the version stays; otherwise it advances.
            // Its ETag (and hash) is computed only if a later job in this batch needs it.
            if bytes != base.bytes {
                pending[environment] = Base(document: document, version: base.version + 1, bytes: bytes, hash: nil, etag: nil)
            }
            index += 1
        }
        if index == jobs.count {
            handedBack = flush(&batch, audit: &audit, overtaking: overtaking)
        }
        // Otherwise the loop stopped at `index` after `settle()`, which caught up.
        guard !handedBack.isEmpty else { return }
        takeAgain(handedBack, then: jobs[index...], caughtUp: index < jobs.count, overtaking: overtaking)
    }

    /// Takes the jobs a commit handed back (`Overtaking.Answer.handBack`) again on the newest version, after a catch-up
    /// unless the caller just made one, followed by `rest`, the jobs of the batch not yet handled.
    func takeAgain(_ handedBack: [WriteJob], then rest: ArraySlice<WriteJob> = [], caughtUp: Bool, overtaking: Overtaking) {
        if !caughtUp { node.catchUp() }
        metrics.publishRetries.add(handedBack.count, ordering: .relaxed)
        process(handedBack + rest, caughtUp: true, overtaking: overtaking.next)
    }
}
