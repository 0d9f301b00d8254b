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
    /// Decided on the version this node serves; when another node's version came first (PostgreSQL), decided again
    /// on the newest one under the write lock, in the transaction that publishes it (`FlagStore.applyChange`'s
    /// `rebase`): no other node can come first twice, so no 412 nobody asked for and no `503 busy` (taking it again
    /// after a catch-up would keep losing to a node writing flat out).
    func applyChange(_ job: WriteJob, id: Int64) {
        let change: ChangeRecord
        do {
            change = try store.change(id: id)
        } catch {
            job.completion(.failed(.store(error)))
            return
        }
        // Held by a tripped guard since the pass handed it over: skipped, still owed once released.
        guard ChangeStatus.applicable.contains(change.status), change.heldByGuard == nil else {
            job.completion(.changeSkipped(change))
            return
        }
        let current = current(change.environment)
        guard let empty = FlagService.emptyDocument else {
            job.completion(.failed(ServiceError(.internalServerError, code: "internal", message: "internal error")))
            return
        }
        let base: FlagDocument
        do {
            base = try baseDocument(of: change, current: current)
        } catch {
            // The base is a committed version; failing to read it is the store's trouble: the change stays owed.
            logger.log(.error, "change_base_unreadable", ["change": "\(id)", "error": "\(error)"])
            job.completion(.failed(.store(error)))
            return
        }
        let policy = policies.policy(change.environment)
        var decision = Self.decide(change, base: base, now: current.document ?? empty, policy: policy)
        guard case .publish(let merged) = decision else {
            finish(job, change, decision)
            return
        }
        let application: ChangeApplication
        var rebased = false
        do {
            application = try store.applyChange(id: change.id, document: merged.canonicalBytes,
                                                expectedCurrentVersion: current.version, actor: job.author) { newest in
                // Under the write lock, on the writer thread: decided again on the version another node published.
                rebased = true
                let now = try newest.map { try FlagDocument.decode($0.document) } ?? empty
                decision = Self.decide(change, base: base, now: now, policy: policy)
                if case .publish(let document) = decision { return document.canonicalBytes }
                return nil
            }
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
            let published = if case .publish(let document) = decision { document } else { merged }
            if rebased { metrics.publishRetries.add(1, ordering: .relaxed) }
            announce(Snapshot(record: version, document: published, documentIsCanonical: true), changeID: record.id)
            metrics.recordPublish(changed: true)
            logger.log(.info, "change_applied", ["env": record.environment, "change": "\(record.id)", "version": "\(version.number)",
                                                 "author": version.author, "by": job.author, "message": version.message])
            job.completion(.changeRan(record, published: CommittedVersion(record: version, document: published)))
        case .applied(let record, .unchanged):
            metrics.recordPublish(changed: false)
            job.completion(.changeRan(record, published: nil))
        case .notApplicable(let record):
            job.completion(.changeSkipped(record))
        case .declined(let record):
            finish(job, record, decision)
        }
    }

    /// What applying a change to the current document comes to.
    enum ApplyDecision {
        /// Publish this document.
        case publish(FlagDocument)
        /// Items it sets were changed since its base, to something else.
        case conflicted([ChangeSet.Item])
        /// The merged document does not validate.
        case invalid(FlagDocumentError)
        /// Unapproved, and it touches flags the policy protects now (these).
        case newlyProtected([String])
    }

    /// The change set of `change` (made against `base`) applied to `now`, and whether it may be published (pure: it
    /// also runs under the store's write lock).
    static func decide(_ change: ChangeRecord, base: FlagDocument, now: FlagDocument, policy: EnvironmentPolicy) -> ApplyDecision {
        let conflicts = change.changeSet.conflicts(base: base, current: now)
        if !conflicts.isEmpty { return .conflicted(conflicts) }
        let merged: FlagDocument
        do {
            merged = try change.changeSet.apply(to: now)
        } catch {
            return .invalid(error)
        }
        // Protection is decided when a change is proposed; a schedule that nobody approved and that touches a
        // flag the policy protects NOW is not published behind the second person's back.
        if change.approvedBy == nil {
            let decision = ProtectionDecision(policy: policy, changeSet: ChangeSet(base: now, proposed: merged), base: now, proposed: merged)
            if decision.needsApproval { return .newlyProtected(decision.protectedFlags) }
        }
        return .publish(merged)
    }

    /// The document of the version `change` was made against: `current`'s when that is the one, the empty
    /// document for version 0, else the stored version's.
    func baseDocument(of change: ChangeRecord, current: Base) throws -> FlagDocument {
        if change.baseVersion == current.version, let document = current.document { return document }
        if change.baseVersion == 0, let empty = FlagService.emptyDocument { return empty }
        return try FlagDocument.decode(try store.version(environment: change.environment, number: change.baseVersion).document)
    }

    /// Marks the change as `decision` says (conflicted, or failed: invalid, newly protected) and completes the job with
    /// the change as it then is.
    private func finish(_ job: WriteJob, _ change: ChangeRecord, _ decision: ApplyDecision) {
        let id = change.id
        do {
            let transition: ChangeTransition
            switch decision {
            case .publish:
                // Not reached: a change to publish is published, or declined with another decision.
                job.completion(.changeSkipped(change))
                return
            case .conflicted(let conflicts):
                transition = try store.markChangeConflicted(id: id, conflicts: conflicts, actor: job.author)
            case .invalid(let error):
                let issues: JSONValue = .array(error.issues.map { .object(["path": .string($0.path), "message": .string($0.message)]) })
                transition = try store.markChangeFailed(
                    id: id, reason: "the document would not validate (\(error.issues.count) problem\(error.issues.count == 1 ? "" : "s"))",
                    details: issues, actor: job.author)
            case .newlyProtected(let flags):
                transition = try store.markChangeFailed(
                    id: id, reason: "it touches protected flags (\(flags.joined(separator: ", "))) that were "
                        + "not protected when it was scheduled; propose it again for approval",
                    details: ["protectedFlags": .array(flags.map(JSONValue.string))], actor: job.author)
            }
            let record = transition.record
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
