import FlagKit
import FlagStore

/// Publishing a change whose time came or that was approved (`docs/governance.md`): the change set is applied
/// to the CURRENT document, never over a later decision, and the version and the change's `applied` status
/// commit together (`FlagStore.applyChange`).
extension WriteQueue {
    /// Publishes change `id` with its author and message, or marks it `conflicted` (an item it sets was changed
    /// since its base, to something else) or `failed` (the merged document does not validate, or it touches a
    /// flag protected since and nobody approved it). `job.author` is who makes it happen (`scheduler`, or the
    /// approver), for the audit line. A change no longer `scheduled` or `approved` is left alone.
    ///
    /// PostgreSQL: when another node's commit overtook it between the catch-up and the store's check, it is decided
    /// again on the newest version, up to `retries` times, then `503 busy`, as a rollback without `If-Match` (before:
    /// 412, which neither the approver nor the scheduler asked for).
    func applyChange(_ job: WriteJob, id: Int64, retries: Int = WriteQueue.rebaseRetries) {
        let change: ChangeRecord
        do {
            change = try store.change(id: id)
        } catch {
            job.completion(.failed(.store(error)))
            return
        }
        guard ChangeStatus.applicable.contains(change.status) else {
            job.completion(.changeSkipped(change))
            return
        }
        let current = current(change.environment)
        guard let empty = FlagService.emptyDocument else {
            job.completion(.failed(ServiceError(.internalServerError, code: "internal", message: "internal error")))
            return
        }
        let now = current.document ?? empty
        let base: FlagDocument
        do {
            base = try baseDocument(of: change, current: current)
        } catch {
            // The base is a committed version; failing to read it is the store's trouble: the change stays owed.
            logger.log(.error, "change_base_unreadable", ["change": "\(id)", "error": "\(error)"])
            job.completion(.failed(.store(error)))
            return
        }
        let conflicts = change.changeSet.conflicts(base: base, current: now)
        if !conflicts.isEmpty {
            finish(job, change) { try store.markChangeConflicted(id: id, conflicts: conflicts, actor: job.author) }
            return
        }
        let merged: FlagDocument
        do {
            merged = try change.changeSet.apply(to: now)
        } catch {
            let issues: JSONValue = .array(error.issues.map { .object(["path": .string($0.path), "message": .string($0.message)]) })
            finish(job, change) {
                try store.markChangeFailed(id: id, reason: "the document would not validate (\(error.issues.count) problem\(error.issues.count == 1 ? "" : "s"))",
                                           details: issues, actor: job.author)
            }
            return
        }
        // Protection is decided when a change is proposed; a schedule that nobody approved and that touches a
        // flag the policy protects NOW is not published behind the second person's back.
        if change.approvedBy == nil {
            let decision = ProtectionDecision(policy: policies.policy(change.environment),
                                              changeSet: ChangeSet(base: now, proposed: merged), base: now, proposed: merged)
            if decision.needsApproval {
                finish(job, change) {
                    try store.markChangeFailed(
                        id: id, reason: "it touches protected flags (\(decision.protectedFlags.joined(separator: ", "))) that were "
                            + "not protected when it was scheduled; propose it again for approval",
                        details: ["protectedFlags": .array(decision.protectedFlags.map(JSONValue.string))], actor: job.author)
                }
                return
            }
        }
        publish(job, change: change, merged: merged, expectedVersion: current.version, retries: retries)
    }

    /// The document of the version `change` was made against: `current`'s when that is the one, the empty
    /// document for version 0, else the stored version's.
    func baseDocument(of change: ChangeRecord, current: Base) throws -> FlagDocument {
        if change.baseVersion == current.version, let document = current.document { return document }
        if change.baseVersion == 0, let empty = FlagService.emptyDocument { return empty }
        return try FlagDocument.decode(try store.version(environment: change.environment, number: change.baseVersion).document)
    }

    /// `applyChange` in the store, then the new version becomes current (`announce`) before the job completes.
    private func publish(_ job: WriteJob, change: ChangeRecord, merged: FlagDocument, expectedVersion: Int, retries: Int) {
        let application: ChangeApplication
        do {
            application = try store.applyChange(id: change.id, document: merged.canonicalBytes,
                                                expectedCurrentVersion: expectedVersion, actor: job.author)
        } catch FlagStoreError.versionConflict where store.isPostgres {
            guard retries > 0 else {
                metrics.publishFailures.add(1, ordering: .relaxed)
                logger.log(.warning, "publish_conflicts_exhausted", ["env": change.environment, "change": "\(change.id)"])
                job.completion(.failed(.othersKeptWriting(change.environment)))
                return
            }
            metrics.publishRetries.add(1, ordering: .relaxed)
            catchUpWithStore()
            applyChange(job, id: change.id, retries: retries - 1)
            return
        } catch {
            health.recordFailure(error)
            metrics.publishFailures.add(1, ordering: .relaxed)
            logger.log(.warning, "change_apply_failed", ["change": "\(change.id)", "error": "\(error)"])
            job.completion(.failed(.store(error)))
            return
        }
        health.recordSuccess()
        metrics.batches.add(1, ordering: .relaxed)
        switch application {
        case .applied(let record, .published(let version)):
            announce(Snapshot(record: version, document: merged, documentIsCanonical: true), changeID: record.id)
            metrics.recordPublish(changed: true)
            logger.log(.info, "change_applied", ["env": record.environment, "change": "\(record.id)", "version": "\(version.number)",
                                                 "author": version.author, "by": job.author, "message": version.message])
            job.completion(.changeRan(record, published: CommittedVersion(record: version, document: merged)))
        case .applied(let record, .unchanged):
            metrics.recordPublish(changed: false)
            job.completion(.changeRan(record, published: nil))
        case .notApplicable(let record):
            job.completion(.changeSkipped(record))
        }
    }

    /// Runs an outcome transition (conflicted, failed) and completes the job with the change as it then is.
    private func finish(_ job: WriteJob, _ change: ChangeRecord, _ transition: () throws -> ChangeTransition) {
        do {
            let record = try transition().record
            logger.log(.warning, "change_not_applied", ["env": record.environment, "change": "\(record.id)",
                                                        "status": record.status.rawValue,
                                                        "conflicts": record.conflicts.map(\.pointer).joined(separator: ","),
                                                        "reason": record.reason ?? "-"])
            job.completion(.changeRan(record, published: nil))
        } catch {
            health.recordFailure(error)
            job.completion(.failed(.store(error)))
        }
    }
}
