import FlagKit
import FlagStore

/// The writer's side of changes (`docs/governance.md`): writes that touch a protected flag become change
/// requests, schedules are recorded, and due or approved changes are published, all in queue order.
extension WriteQueue {
    /// Whether a `.document` or `.flag` job that changes `base` into `proposed` needs a second person. A flip
    /// takes `ProtectionDecision`'s fast path; a whole document the full decision (only when the policy
    /// protects anything at all).
    func needsApproval(_ job: WriteJob, base: FlagDocument?, proposed: FlagDocument) -> Bool {
        if job.approvedBy != nil { return false }
        let entry = policies.entry(job.environment)
        guard entry.protectsAnything else { return false }
        if case .flag(let key, _) = job.kind {
            return ProtectionDecision.flagEditNeedsApproval(entry, key: key, base: base, proposed: proposed)
        }
        let from = base ?? FlagService.emptyDocument ?? proposed
        return ProtectionDecision(policy: entry.policy, changeSet: ChangeSet(base: from, proposed: proposed), base: from,
                                  proposed: proposed).needsApproval
    }

    /// Records a `.document` or `.flag` job that touches a protected flag as a change request. Decided again
    /// against the version current now (the batch before it was just committed), so what is recorded is
    /// exactly what a publish at this point would have changed.
    func propose(_ job: WriteJob) {
        let base = current(job.environment)
        if let refusal = Self.check(job.precondition, etag: base.etag, version: base.version) {
            job.completion(.failed(refusal))
            return
        }
        do {
            let proposed = try Self.proposedDocument(job, base: base.document)
            let kind: ChangeKind = if case .flag = job.kind { .flags } else { .document }
            record(job, kind: kind, base: base, proposed: proposed, applyAt: nil)
        } catch {
            job.completion(.failed(error))
        }
    }

    /// Records the change from `base` to `proposed` (`FlagStore.createChange`, its own durable transaction):
    /// a change request when it touches a protected flag, else a schedule (`applyAt` is then required).
    /// 409 `empty_change` when it changes nothing. A write that needs no approval (the policy changed between
    /// the fast check and here) is published instead, alone.
    func record(_ job: WriteJob, kind: ChangeKind, base: Base, proposed: FlagDocument, applyAt: Int64?) {
        let from = base.document ?? FlagService.emptyDocument ?? proposed
        let changeSet = ChangeSet(base: from, proposed: proposed)
        guard !changeSet.isEmpty else {
            job.completion(.failed(ServiceError(.conflict, code: "empty_change",
                                                message: "this changes nothing: version \(base.version) already has it")))
            return
        }
        let policy = policies.policy(job.environment)
        let decision = ProtectionDecision(policy: policy, changeSet: changeSet, base: from, proposed: proposed)
        if applyAt == nil, !decision.needsApproval {
            let target: String? = if case .flag(let key, _) = job.kind { key } else { nil }
            var batch = [(job: job, request: PublishRequest(environment: job.environment, document: proposed.canonicalBytes,
                                                            author: job.author, message: job.message, expectedCurrentVersion: base.version,
                                                            target: target, client: job.client), document: proposed)]
            var noAudit: [AuditRecord] = []
            // A first try of its own: overtaken by another node's commit, it is taken again on the newest version like
            // any write.
            let handedBack = flush(&batch, audit: &noAudit, overtaking: firstTry)
            if !handedBack.isEmpty { takeAgain(handedBack, caughtUp: false, overtaking: firstTry) }
            return
        }
        let now = ChangeScheduler.wallClock()
        let change = NewChange(
            environment: job.environment, kind: kind, changeSet: changeSet, baseVersion: base.version, author: job.author,
            message: job.message, applyAtMilliseconds: applyAt,
            expiresAtMilliseconds: decision.needsApproval ? now + policy.requestTTLMilliseconds : nil,
            needsApproval: decision.needsApproval, touchedFlags: decision.touchedFlags, protectedFlags: decision.protectedFlags,
            client: job.client)
        let record: ChangeRecord
        do {
            record = try store.createChange(change)
        } catch {
            health.recordFailure(error)
            logger.log(.warning, "change_refused", ["env": job.environment, "error": "\(error)"])
            job.completion(.failed(.store(error)))
            return
        }
        health.recordSuccess()
        logger.log(.info, record.status == .pending ? "change_requested" : "change_scheduled", [
            "env": record.environment, "change": "\(record.id)", "author": record.author,
            "protected": record.protectedFlags.joined(separator: ","),
            "at": record.applyAtMilliseconds.map { RFC3339.string(milliseconds: $0) } ?? "-",
        ])
        if record.status == .pending { scheduler.requestRecorded() } else { scheduler.wake() }
        // Announced here, not by whoever asked: a request a guard's rollback or an override made reaches the approvers'
        // webhooks as one made through the API does.
        webhooks?.submit(record.status == .pending ? "request.created" : "change.scheduled", change: record)
        job.completion(.recorded(RecordedChange(record: record, base: from, proposed: proposed)))
    }

    /// A `.schedule` or `.applyChange` job (the batch before it is committed).
    func runChangeJob(_ job: WriteJob) {
        switch job.kind {
        case .schedule(let edit, let applyAt):
            let base = current(job.environment)
            if let refusal = Self.check(job.precondition, etag: base.etag, version: base.version) {
                job.completion(.failed(refusal))
                return
            }
            do throws(ServiceError) {
                switch edit {
                case .flags(let edits):
                    var document = base.document
                    for key in edits.keys.sorted(by: JSONValue.utf8Order) {
                        document = try edits[key, default: .value(.null)].apply(to: document, key: key)
                    }
                    guard let document else { throw ServiceError(.conflict, code: "empty_change", message: "no flags given") }
                    record(job, kind: .flags, base: base, proposed: document, applyAt: applyAt)
                case .document(let document):
                    record(job, kind: .document, base: base, proposed: document, applyAt: applyAt)
                }
            } catch {
                job.completion(.failed(error))
            }
        case .applyChange(let id):
            applyChange(job, id: id)
        case .document, .flag, .rollback, .notification:
            job.completion(.failed(ServiceError(.internalServerError, code: "internal", message: "internal error")))
        }
    }
}
