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
    /// Another node came first (`Overtaking` decides): a job without `If-Match` whose request found another node's
    /// version is built again under the write lock on the newest version (its edit applied to it, or its whole document
    /// as sent) and published there, when it needs no approval on it (`store.publish(batch:audit:knownHeads:rebase:)`), so a node
    /// writing flat out cannot overtake it every time. The jobs whose request found another version than the one it was
    /// built on (`versionConflict`) and were not rebuilt (`If-Match`, an edit that now needs approval or fails) are,
    /// while `overtaking` says so, not completed but returned, in order, to be taken again on the newest version.
    func flush(_ batch: inout [(job: WriteJob, request: PublishRequest, document: FlagDocument)], audit: inout [AuditRecord],
               overtaking: Overtaking) -> [WriteJob] {
        guard !batch.isEmpty else { return [] }
        defer { batch.removeAll() }
        let lines = audit
        audit = []
        let results: [Result<PublishOutcome, FlagStoreError>]
        // What a rebase built, by the request's index: the document a published version then holds.
        var rebuilt: [Int: FlagDocument] = [:]
        var lastRebuilt: (bytes: [UInt8], document: FlagDocument)?
        let jobs = batch.map(\.job)
        // The versions this node has installed: the store may build the batch on them instead of reading the heads
        // (on PostgreSQL it does, and the server checks them in the commit's one round trip).
        var installed: [String: VersionRecord] = [:]
        for entry in batch where installed[entry.request.environment] == nil {
            installed[entry.request.environment] = snapshots.snapshot(entry.request.environment)?.record
        }
        do {
            results = try store.publish(batch: batch.map(\.request), audit: lines, knownHeads: installed, rebase: !overtaking.rebuildsUnderLock ? nil : { [self] index, newest in
                // Under the write lock, on the writer thread: no store calls, only the policy table in memory.
                let job = jobs[index]
                guard Overtaking.mayRebuild(job) else { return nil }
                var now: FlagDocument?
                if let newest {
                    // A request chained on one rebuilt here builds on that one's document: no decode of its bytes.
                    if let last = lastRebuilt, last.bytes == newest.document {
                        now = last.document
                    } else if let installed = snapshots.snapshot(job.environment), installed.version == newest.number,
                              installed.record.contentHash == newest.contentHash {
                        // Usually the other node's version is installed already (its notification came first): decoded
                        // then, not again here under the lock. Both hashes were verified; equal hashes, equal bytes.
                        now = installed.document
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
            case .failure(.versionConflict) where overtaking.publishRefused(entry.job) == .handBack:
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
            case .failure(.versionConflict(let environment, _, _)) where overtaking.publishRefused(entry.job) == .busy:
                // Other nodes kept committing first through every hand-back: nothing was written, and a client without
                // `If-Match` did not ask for a 412 (docs/api.md), so it is told to retry.
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
    /// Another node came first (`Overtaking` decides): a rollback without `If-Match` is published on the newest version
    /// under the write lock when it still needs no approval there (`FlagStore.rollback`'s `allowedOn`); when it now
    /// does, on a shared store it is taken again after catching up (and becomes a change request), up to
    /// `Overtaking.retries` times, then `503 busy`, as a bare write (a 412 would answer a question its client did not
    /// ask). With `If-Match` the conflict is the answer. `overtaking`: nil for a rollback's first try.
    func rollback(_ job: WriteJob, to number: Int, overtaking: Overtaking? = nil) {
        let overtaking = overtaking ?? firstTry
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
            var rebased = false
            let outcome = try store.rollback(environment: environment, to: number, author: job.author, message: job.message,
                                             expectedCurrentVersion: current?.version ?? 0, client: job.client,
                                             allowedOn: !Overtaking.mayRebuild(job) ? nil : { [self] newest in
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
        } catch FlagStoreError.versionConflict where overtaking.rollbackRefused(job) == .handBack {
            metrics.publishRetries.add(1, ordering: .relaxed)
            node.catchUp()
            rollback(job, to: number, overtaking: overtaking.next)
        } catch FlagStoreError.versionConflict where overtaking.rollbackRefused(job) == .busy {
            metrics.publishFailures.add(1, ordering: .relaxed)
            logger.log(.warning, "publish_conflicts_exhausted", ["env": environment, "to": "\(number)"])
            job.completion(.failed(.othersKeptWriting(environment)))
        } catch {
            health.recordFailure(error)
            metrics.publishFailures.add(1, ordering: .relaxed)
            logger.log(.warning, "rollback_refused", ["env": environment, "to": "\(number)", "error": "\(error)"])
            job.completion(.failed(.store(error)))
        }
    }

    /// Makes a committed version current: installs its snapshot (`ClusterNode.install`), then tells the event streams.
    /// EVERY new version goes through here (publishes, rollbacks, applied changes), so whatever must hear of each
    /// version (event streams, webhooks' `version.published`, the scheduler's check of pending change requests)
    /// is told in this one place. Subscribers hear of the version only once a GET would serve it. The webhooks'
    /// hand-off never blocks (a bounded queue) and costs one atomic load while no webhook is registered.
    /// `changeID`: the change that made the version, when one did (the webhooks' `data.changeId`).
    func announce(_ snapshot: Snapshot, changeID: Int64? = nil) {
        // The replaced snapshot is freed here, on the writer thread, outside the lock GETs take.
        let replaced = node.install(snapshot)
        webhooks?.versionPublished(snapshot, changeID: changeID)
        scheduler.versionPublished(snapshot.environment)
        withExtendedLifetime(replaced) {}
    }
}
