import FlagKit

/// A change's status transitions, each a compare-and-set with its audit line in one transaction, and
/// `applyChange`, which publishes and marks the change applied in one transaction.
///
/// Every transition is `UPDATE changes SET status = ... WHERE id = ? AND status IN (<allowed>)`: the write lock
/// and the condition make it atomic, so of two racing deciders (an approval and an expiry, two approvers)
/// exactly one wins and the other gets `.refused` with the status it lost to. The schema's trigger refuses
/// any transition outside `ChangeStatus.next` even for code that skips these methods.
extension FlagStore {
    /// Approves a pending request (`POST /v1/changes/{id}/approve`): it becomes `scheduled` when its `applyAt`
    /// is after `now`, otherwise `approved` (publish it next with `applyChange`). Audit: `change.approve`.
    ///
    /// The self-approval and expiry checks are the service's (it knows the caller's token and answers 403/409
    /// first); the store guarantees the status.
    public func approveChange(id: Int64, actor: String, message: String? = nil, now: Int64? = nil,
                              client: String? = nil) throws -> ChangeTransition {
        let at = now ?? currentMilliseconds()
        return try transition(
            id: id, from: [.pending],
            set: "status = CASE WHEN apply_at > ? THEN 'scheduled' ELSE 'approved' END, approved_by = ?, decided_by = ?, "
                + "decided_at = ?, decision_message = ?",
            arguments: [.integer(at), .text(actor), .text(actor), .integer(at), .optionalText(message)],
            actor: actor, message: message, at: at) { record in
                AuditRecord(actor: actor, action: "change.approve", environment: record.environment, target: String(id),
                            client: client, detail: record.status == .scheduled
                                ? "scheduled for \(record.applyAtMilliseconds.map { RFC3339.string(milliseconds: $0) } ?? "-")"
                                : "approved for publication")
            }
    }

    /// Rejects a pending request (`POST /v1/changes/{id}/reject`); `message` is required. Audit: `change.reject`.
    public func rejectChange(id: Int64, actor: String, message: String, client: String? = nil) throws -> ChangeTransition {
        try Self.requireNonEmpty(message, name: "message", maxLength: 10_000)
        return try decide(id: id, from: [.pending], to: .rejected, action: "change.reject", actor: actor, message: message,
                          client: client)
    }

    /// Cancels a `pending` or `scheduled` change (`DELETE /v1/changes/{id}`; `409 not_cancellable` on
    /// `.refused`). Audit: `change.cancel`.
    public func cancelChange(id: Int64, actor: String, message: String? = nil, client: String? = nil) throws -> ChangeTransition {
        try decide(id: id, from: ChangeStatus.cancellable, to: .cancelled, action: "change.cancel", actor: actor,
                   message: message, client: client)
    }

    /// Marks a pending request `expired` (the scheduler, for `expiredRequests(now:)`). Audit: `change.expire`.
    public func expireChange(id: Int64, actor: String = "scheduler") throws -> ChangeTransition {
        try decide(id: id, from: [.pending], to: .expired, action: "change.expire", actor: actor,
                   message: "not approved within the policy's request lifetime", client: nil)
    }

    /// Marks a pending request `stale`: a publish since changed `conflicts` (it must be proposed again).
    /// Audit: `change.stale`.
    public func markChangeStale(id: Int64, conflicts: [ChangeSet.Item], actor: String = "scheduler") throws -> ChangeTransition {
        try outcome(id: id, from: [.pending], to: .stale, action: "change.stale", actor: actor, auditOutcome: .ok,
                    conflicts: conflicts, reason: nil, details: nil)
    }

    /// Marks a `scheduled` or `approved` change `conflicted` at its time: `conflicts` were changed since; nothing
    /// is published. Audit: `change.conflict` (outcome `refused`).
    public func markChangeConflicted(id: Int64, conflicts: [ChangeSet.Item], actor: String = "scheduler") throws -> ChangeTransition {
        try outcome(id: id, from: ChangeStatus.applicable, to: .conflicted, action: "change.conflict", actor: actor,
                    auditOutcome: .refused, conflicts: conflicts, reason: nil, details: nil)
    }

    /// Marks a `scheduled` or `approved` change `failed`: the merged document did not validate (`reason`, and
    /// `details`, e.g. the issues with their JSON paths). Audit: `change.fail` (outcome `failed`).
    public func markChangeFailed(id: Int64, reason: String, details: JSONValue? = nil,
                                 actor: String = "scheduler") throws -> ChangeTransition {
        try Self.requireNonEmpty(reason, name: "reason", maxLength: 10_000)
        return try outcome(id: id, from: ChangeStatus.applicable, to: .failed, action: "change.fail", actor: actor,
                           auditOutcome: .failed, conflicts: [], reason: reason, details: details)
    }

    /// Publishes `document` (the change set applied to the current document, canonical bytes) as the next version
    /// of the change's environment, with the change's author and message, AND marks the change `applied` with that
    /// version and the time, in ONE transaction: after a crash either both happened or neither.
    ///
    /// - `.notApplicable` (nothing written) unless the change is `scheduled` or `approved` and no guard holds it: a change
    ///   is never applied twice, whoever calls this twice or at once.
    /// - `expectedCurrentVersion` is the version the writer merged against. When another publish came first (another
    ///   node's, on PostgreSQL): without `rebase`, `versionConflict` (nothing written): merge again and retry; with it,
    ///   `rebase` is called under the write lock with the version current now (hash verified; nil when there is none)
    ///   and returns the document merged against it, published in this same transaction, so no other writer can
    ///   come first again; or nil when the change cannot be published on it (`.declined`, nothing written).
    ///   `rebase` runs inside the store's write: it must not call the store.
    /// - Audit: the version's `publish` line (by the author) and `change.apply` (by `actor`, with the version).
    public func applyChange(id: Int64, document: [UInt8], expectedCurrentVersion: Int, actor: String = "scheduler",
                            rebase: ((VersionRecord?) throws -> [UInt8]?)? = nil) throws -> ChangeApplication {
        if document.isEmpty { throw FlagStoreError.invalidArgument(name: "document", reason: "must not be empty") }
        try Self.requireNonEmpty(actor, name: "actor")
        return try write { database in
            try database.transaction(.write) {
                let change = try Self.fetchChange(database, id: id)
                // A schedule a tripped guard holds is not published, also when it was handed over before the hold.
                guard ChangeStatus.applicable.contains(change.status), change.heldByGuard == nil else { return .notApplicable(change) }
                func publish(_ document: [UInt8], expecting expected: Int) throws -> PublishOutcome {
                    try Self.publishInTransaction(
                        database, environment: change.environment, document: document, hash: Self.contentHash(document),
                        author: change.author, message: change.message, expectedCurrentVersion: expected, rolledBackFrom: nil)
                }
                let outcome: PublishOutcome
                do {
                    outcome = try publish(document, expecting: expectedCurrentVersion)
                } catch FlagStoreError.versionConflict where rebase != nil {
                    // The head check writes nothing before it throws: still under the lock, the newest version decides.
                    let newest = try Self.verifiedNewestVersion(database, environment: change.environment)
                    guard let rebase, let rebuilt = try rebase(newest) else { return .declined(change) }
                    if rebuilt.isEmpty { throw FlagStoreError.invalidArgument(name: "document", reason: "must not be empty") }
                    outcome = try publish(rebuilt, expecting: newest?.number ?? 0)
                }
                let now = currentMilliseconds()
                let updated = try database.run("""
                    UPDATE changes SET status = 'applied', applied_version = ?, applied_at = ?
                    WHERE id = ? AND status IN (\(ChangeStatus.sqlList(ChangeStatus.applicable)))
                    """, [.integer(Int64(outcome.record.number)), .integer(now), .integer(id)])
                // Unreachable while the write lock is held since the read above; throwing rolls the publish back.
                guard updated == 1 else { throw StoredJSON.corrupt("change \(id) changed status during applyChange") }
                let published = if case .published = outcome { "published" } else { "unchanged" }
                try Self.audit(database, AuditRecord(
                    actor: actor, action: "change.apply", environment: change.environment, target: String(id),
                    version: outcome.record.number, detail: "\(published) as version \(outcome.record.number)"), now: now)
                return .applied(try Self.fetchChange(database, id: id), outcome)
            }
        }
    }

    /// A decision (reject, cancel, expire): the status, who, when and why.
    private func decide(id: Int64, from allowed: Set<ChangeStatus>, to status: ChangeStatus, action: String, actor: String,
                        message: String?, client: String?) throws -> ChangeTransition {
        let now = currentMilliseconds()
        return try transition(
            id: id, from: allowed, set: "status = '\(status.rawValue)', decided_by = ?, decided_at = ?, decision_message = ?",
            arguments: [.text(actor), .integer(now), .optionalText(message)], actor: actor, message: message, at: now) { record in
                AuditRecord(actor: actor, action: action, environment: record.environment, target: String(id),
                            client: client, detail: message ?? "")
            }
    }

    /// An outcome at the change's time (stale, conflicted, failed): the status and what went wrong.
    private func outcome(id: Int64, from allowed: Set<ChangeStatus>, to status: ChangeStatus, action: String, actor: String,
                         auditOutcome: AuditOutcome, conflicts: [ChangeSet.Item], reason: String?,
                         details: JSONValue?) throws -> ChangeTransition {
        let pointers = conflicts.sorted().map(\.pointer)
        let now = currentMilliseconds()
        return try transition(
            id: id, from: allowed, set: "status = '\(status.rawValue)', conflicts = ?, reason = ?, details = ?",
            arguments: [.text(StoredJSON.text(pointers)), .optionalText(reason), .optionalText(details.map(StoredJSON.text))],
            actor: actor, message: nil, at: now) { record in
                AuditRecord(actor: actor, action: action, environment: record.environment, target: String(id),
                            outcome: auditOutcome, reason: reason, detail: pointers.joined(separator: " "))
            }
    }

    /// The compare-and-set: `assignments` (SQL with `?` for `arguments`) applied only while the status is in
    /// `allowed`; then the audit line built from the updated record. Nothing is written when it is refused.
    private func transition(id: Int64, from allowed: Set<ChangeStatus>, set assignments: String, arguments: [DatabaseValue],
                            actor: String, message: String?, at now: Int64,
                            audit: (ChangeRecord) -> AuditRecord) throws -> ChangeTransition {
        try Self.requireNonEmpty(actor, name: "actor")
        if let message, message.utf8.count > 10_000 {
            throw FlagStoreError.invalidArgument(name: "message", reason: "longer than 10000 bytes")
        }
        return try write { database in
            try database.transaction(.write) {
                let changed = try database.run("""
                    UPDATE changes SET \(assignments) WHERE id = ? AND status IN (\(ChangeStatus.sqlList(allowed)))
                    """, arguments + [.integer(id)])
                let record = try Self.fetchChange(database, id: id)
                guard changed == 1 else { return .refused(record) }
                try Self.audit(database, audit(record), now: now)
                try Self.notifyChange(database, environment: record.environment)
                return .done(record)
            }
        }
    }
}
