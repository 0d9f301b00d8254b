import FlagKit
import FlagStore

/// Committing: group commits of publishes, and rollbacks.
extension WriteQueue {
    /// Writes `batch` in one durable transaction, installs the newest snapshot of each environment, THEN
    /// completes the jobs, so a client that got its 200 reads its version (or a newer one) on its next GET.
    /// A snapshot (response bytes, OFREP answers) is built only for the last version of an environment in
    /// the batch: the ones before it would be replaced before anyone could read them. `audit` (refusals' lines)
    /// is written in the same commit and emptied; a failed commit loses those lines (counted as dropped).
    ///
    /// PostgreSQL: a job without `If-Match` whose request found another node's version is built again under the write
    /// lock on the newest version (its edit applied to it, or its whole document as sent) and published there, when
    /// it needs no approval on it (`store.publish(batch:audit:rebase:)`). Before, the batch was only taken again after
    /// a catch-up, and a node writing flat out could win every time until the job ended `503 busy`.
    ///
    /// `handBackConflicts` (PostgreSQL, the writer had not caught up with the database): the jobs whose request found
    /// another version than the one it was built on (`versionConflict`) and were not rebuilt (`If-Match`, an edit that
    /// now needs approval or fails) are not completed but returned, in order, for `process` to take again on the newest
    /// version.
    @discardableResult
    func flush(_ batch: inout [(job: WriteJob, request: PublishRequest, document: FlagDocument)], audit: inout [AuditRecord],
               handBackConflicts: Bool = false) -> [WriteJob] {
        guard !batch.isEmpty else { return [] }
        defer { batch.removeAll() }
        let lines = audit
        audit = []
        let results: [Result<PublishOutcome, FlagStoreError>]
        // What a rebase built, by the request's index: the document a published version then holds.
        var rebuilt: [Int: FlagDocument] = [:]
        var lastRebuilt: (bytes: [UInt8], document: FlagDocument)?
        let jobs = batch.map(\.job)
        do {
            results = try store.publish(batch: batch.map(\.request), audit: lines, rebase: !store.isPostgres ? nil : { [self] index, newest in
                // Under the write lock, on the writer thread: no store calls, only the policy table in memory.
                let job = jobs[index]
                guard job.precondition == .none else { return nil }
                var now: FlagDocument?
                if let newest {
                    // A request chained on one rebuilt here builds on that one's document: no decode of its bytes.
                    if let last = lastRebuilt, last.bytes == newest.document {
                        now = last.document
                    } else {
                        guard let decoded = try? FlagDocument.decode(newest.document) else { return nil }
                        now = decoded
                    }
                }
                guard let proposed = try? Self.proposedDocument(job, base: now), !needsApproval(job, base: now, proposed: proposed)
                else { return nil }
                let bytes = proposed.canonicalBytes
                rebuilt[index] = proposed
                lastRebuilt = (bytes, proposed)
                return bytes
            })
        } catch {
            health.recordFailure(error)
            metrics.publishFailures.add(batch.count, ordering: .relaxed)
            auditLost(lines.count, error)
            logger.log(.error, "publish_failed", ["jobs": "\(batch.count)", "error": "\(error)"])
            let refusal = ServiceError.store(error)
            for entry in batch { entry.job.completion(.failed(refusal)) }
            return []
        }
        health.recordSuccess()
        metrics.batches.add(1, ordering: .relaxed)
        var outcomes: [WriteOutcome?] = []
        outcomes.reserveCapacity(batch.count)
        var newest: [String: CommittedVersion] = [:]
        var handedBack: [WriteJob] = []
        for (index, (entry, result)) in zip(batch, results).enumerated() {
            switch result {
            case .failure(.versionConflict) where handBackConflicts:
                handedBack.append(entry.job)
                outcomes.append(nil)
            case .success(.published(let record)):
                if rebuilt[index] != nil { metrics.publishRetries.add(1, ordering: .relaxed) }
                let published = CommittedVersion(record: record, document: rebuilt[index] ?? entry.document)
                newest[record.environment] = published
                metrics.recordPublish(changed: true)
                logger.log(.info, "publish", ["env": record.environment, "version": "\(record.number)",
                                              "author": record.author, "hash": record.contentHash,
                                              "batch": "\(batch.count)", "message": record.message])
                outcomes.append(.published(published))
            case .success(.unchanged(let record)):
                // Accepted, yet nothing to publish: the store wrote the attempt's line in this same commit.
                metrics.recordPublish(changed: false)
                outcomes.append(.unchanged(record))
            case .failure(.versionConflict(let environment, _, _)) where entry.job.precondition == .none:
                // Other nodes kept committing first through every rebase (`process`): nothing was written, and a
                // client without `If-Match` did not ask for a 412 (docs/api.md), so it is told to retry.
                metrics.publishFailures.add(1, ordering: .relaxed)
                logger.log(.warning, "publish_conflicts_exhausted", ["env": environment])
                outcomes.append(.failed(.othersKeptWriting(environment)))
            case .failure(let error):
                metrics.publishFailures.add(1, ordering: .relaxed)
                logger.log(.warning, "publish_refused", ["env": entry.request.environment, "error": "\(error)"])
                outcomes.append(.failed(ServiceError.store(error)))
            }
        }
        for published in newest.values {
            let snapshot = Snapshot(record: published.record, document: published.document, documentIsCanonical: true)
            announce(snapshot)
        }
        for (entry, outcome) in zip(batch, outcomes) {
            if let outcome { entry.job.completion(outcome) }
        }
        return handedBack
    }

    /// Republishes version `number` as a new version. The old document is decoded first, so a version that
    /// no longer validates (rules got stricter) is refused with 422 instead of being served.
    ///
    /// PostgreSQL: a rollback without `If-Match` that another node's commit overtook is published on the newest version
    /// under the write lock when it still needs no approval there (`FlagStore.rollback`'s `allowedOn`); when it now
    /// does, it is taken again after catching up (and becomes a change request), up to `rebaseRetries` times, then
    /// `503 busy`, as a bare write (before: 412, which its client did not ask for; review of 2026-12-03, gap 2). With
    /// `If-Match` the conflict is the answer.
    func rollback(_ job: WriteJob, to number: Int, retries: Int = WriteQueue.rebaseRetries) {
        let environment = job.environment
        let current = snapshots.snapshot(environment)
        if let refusal = Self.check(job.precondition, etag: current?.etag, version: current?.version ?? 0) {
            job.completion(.failed(refusal))
            return
        }
        let document: FlagDocument
        do {
            let old = try store.version(environment: environment, number: number)
            try FlagStore.verify(old)  // checked again inside the store's transaction
            document = try FlagDocument.decode(old.document)
        } catch let error as FlagDocumentError {
            job.completion(.failed(ServiceError(.unprocessableContent, code: "invalid_document",
                                                message: "version \(number) no longer validates", details: error.issues)))
            return
        } catch {
            if case FlagStoreError.damagedVersion = error {
                logger.log(.error, "damaged_version", ["env": environment, "to": "\(number)", "error": "\(error)"])
            }
            job.completion(.failed(.store(error)))
            return
        }
        let base = self.current(environment)
        // Content equal to the current version's changes nothing, so it touches no flag and needs no approval.
        if needsApproval(job, base: base.document, proposed: document) {
            record(job, kind: .rollback, base: base, proposed: document, applyAt: nil)
            return
        }
        do {
            let bare = job.precondition == .none
            var rebased = false
            let outcome = try store.rollback(environment: environment, to: number, author: job.author, message: job.message,
                                             expectedCurrentVersion: current?.version ?? 0, client: job.client,
                                             allowedOn: !bare ? nil : { [self] newest in
                // Under the write lock, on the writer thread: no store calls, only the policy table in memory.
                rebased = true
                let now = try newest.map { try FlagDocument.decode($0.document) }
                return !needsApproval(job, base: now, proposed: document)
            })
            health.recordSuccess()
            metrics.batches.add(1, ordering: .relaxed)
            switch outcome {
            case .published(let record):
                // Counted as the change application's rebase is: a write built again on another node's version.
                if rebased { metrics.publishRetries.add(1, ordering: .relaxed) }
                let snapshot = Snapshot(record: record, document: document)
                announce(snapshot)
                metrics.recordPublish(changed: true)
                logger.log(.info, "rollback", ["env": environment, "version": "\(record.number)", "from": "\(number)",
                                               "author": record.author, "message": record.message])
                job.completion(.published(CommittedVersion(record: record, document: document)))
            case .unchanged(let record):
                metrics.recordPublish(changed: false)
                recordAudit(AuditRecord(actor: job.author, action: "publish", environment: environment, client: job.client,
                                        version: record.number, detail: "unchanged: rollback to \(number), whose content is current"))
                job.completion(.unchanged(record))
            }
        } catch FlagStoreError.versionConflict where store.isPostgres && job.precondition == .none {
            guard retries > 0 else {
                metrics.publishFailures.add(1, ordering: .relaxed)
                logger.log(.warning, "publish_conflicts_exhausted", ["env": environment, "to": "\(number)"])
                job.completion(.failed(.othersKeptWriting(environment)))
                return
            }
            metrics.publishRetries.add(1, ordering: .relaxed)
            catchUpWithStore()
            rollback(job, to: number, retries: retries - 1)
        } catch {
            health.recordFailure(error)
            metrics.publishFailures.add(1, ordering: .relaxed)
            logger.log(.warning, "rollback_refused", ["env": environment, "to": "\(number)", "error": "\(error)"])
            job.completion(.failed(.store(error)))
        }
    }

    /// Makes a committed version current: installs its snapshot, then tells the event streams. EVERY new
    /// version goes through here (publishes, rollbacks, applied changes), so whatever must hear of each
    /// version (event streams, webhooks' `version.published`, the scheduler's check of pending change requests)
    /// is told in this one place. Subscribers hear of the version only once a GET would serve it. The webhooks'
    /// hand-off never blocks (a bounded queue) and costs one atomic load while no webhook is registered.
    /// `changeID`: the change that made the version, when one did (the webhooks' `data.changeId`).
    func announce(_ snapshot: Snapshot, changeID: Int64? = nil) {
        // The replaced snapshot is freed here, on the writer thread, outside the lock GETs take.
        let replaced: Snapshot?
        if store.isPostgres {
            // Another node's version may have been installed meanwhile (`catchUpWithStore`): once each, in order.
            replaced = announcing.withLock { _ -> Snapshot? in
                let outcome = snapshots.installIfNewer(snapshot)
                if outcome.installed { events.publish(snapshot) }
                return outcome.replaced
            }
        } else {
            replaced = snapshots.install(snapshot)
            events.publish(snapshot)
        }
        webhooks?.versionPublished(snapshot, changeID: changeID)
        scheduler.versionPublished(snapshot.environment)
        withExtendedLifetime(replaced) {}
    }

    /// PostgreSQL: installs and announces the versions other nodes published since this node's snapshots (each
    /// environment's newest number and content hash compared, one indexed lookup each), and learns new environments.
    /// Their webhook deliveries were stored by the publishing node, so only the event streams and the scheduler hear of
    /// them here. Run by the cluster thread every round, and by the writer when a request found the database ahead of
    /// its base or before a rare decision (`process`).
    ///
    /// A snapshot the database does not have (its newest number is lower, or the same number holds other content: an
    /// acknowledged commit lost in an asynchronous failover) is replaced by the database's version, checked again
    /// under the announcing lock so that a commit of this node's writer in between is not undone. Each environment is
    /// caught up on its own: one whose stored version no longer decodes does not stop the others.
    /// Returns what failed: the whole catch-up (the database away) or single environments.
    @discardableResult
    func catchUpWithStore() -> CatchUpFailures {
        catchUps.add(1, ordering: .relaxed)
        let newest: [String: (number: Int, contentHash: String)]
        do {
            newest = try store.newestVersions()
        } catch {
            logger.log(.warning, "catch_up_failed", ["error": "\(error)"])
            return CatchUpFailures(all: error)
        }
        let names = newest.keys.sorted()
        if names != snapshots.environments { snapshots.setEnvironments(names) }
        var failures = CatchUpFailures()
        for (name, head) in newest.sorted(by: { $0.key < $1.key }) {
            let served = snapshots.snapshot(name)
            let lost = Self.databaseLost(served, newest: head.number, hash: head.contentHash)
            guard head.number > (served?.version ?? 0) || lost else { continue }
            do {
                if lost {
                    try replaceLostSnapshot(name)
                    continue
                }
                guard let record = try store.currentVersion(environment: name) else { continue }
                let snapshot = try Snapshot(record: record)
                let outcome = announcing.withLock { _ in
                    let outcome = snapshots.installIfNewer(snapshot)
                    if outcome.installed { events.publish(snapshot) }
                    return outcome
                }
                let installed = outcome.installed
                withExtendedLifetime(outcome.replaced) {}
                if installed {
                    scheduler.versionPublished(name)
                    logger.log(.info, "version_from_another_node", ["env": name, "version": "\(record.number)"])
                }
            } catch {
                logger.log(.warning, "catch_up_failed", ["env": name, "error": "\(error)"])
                failures.environments[name] = error
            }
        }
        return failures
    }

    /// Whether the database does not have `served`: its newest version is older, or the same number holds other content.
    static func databaseLost(_ served: Snapshot?, newest number: Int, hash: String) -> Bool {
        guard let served, served.version > 0 else { return false }
        return number < served.version || (number == served.version && hash != served.record.contentHash)
    }

    /// The database does not have the version this node serves for `name`: installs the database's newest, read again
    /// under the announcing lock (this node's writer announces under it after its commit, so a version it committed
    /// meanwhile is seen here and kept).
    private func replaceLostSnapshot(_ name: String) throws {
        let (replaced, installed) = try announcing.withLock { _ throws -> (Snapshot?, VersionRecord?) in
            guard let record = try store.currentVersion(environment: name),
                  Self.databaseLost(snapshots.snapshot(name), newest: record.number, hash: record.contentHash)
            else { return (nil, nil) }
            let snapshot = try Snapshot(record: record)
            let replaced = snapshots.replaceLost(with: snapshot)
            events.publish(snapshot)
            return (replaced, record)
        }
        guard let installed else { return }
        withExtendedLifetime(replaced) {}
        scheduler.versionPublished(name)
        logger.log(.error, "served_version_lost", ["env": name, "served": "\(replaced?.version ?? 0)",
                                                   "servedHash": replaced?.record.contentHash ?? "",
                                                   "database": "\(installed.number)", "databaseHash": installed.contentHash])
    }
}

/// What a catch-up could not do (`WriteQueue.catchUpWithStore`): a decision the writer would make on a base it could
/// not bring up to date gets the store's error instead (503), not a refusal the newest version might not deserve.
struct CatchUpFailures {
    /// The newest versions could not be read at all (the database away): every environment's base may be stale.
    var all: (any Error)?
    /// Environments whose newest version could not be installed (a read failed, or it no longer decodes).
    var environments: [String: any Error] = [:]

    /// Why `environment`'s base may be stale, or nil.
    func error(for environment: String) -> (any Error)? { environments[environment] ?? all }
}
