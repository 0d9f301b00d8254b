import FlagKit

/// Guards (docs/guards.md, "The service"): recording them, reading them for the API and the jobs, and their status
/// transitions, each a compare-and-set with its audit line in one transaction (as a change's are), so two passes of the
/// jobs or two people racing never act twice.
extension FlagStore {
    /// Records `new` with its `guard.add` audit line in one transaction and returns it: `watching` when its version is
    /// given, `waiting` for its change otherwise.
    ///
    /// Refused with `invalidArgument` (nothing written): neither a change nor a version, a version without its
    /// publication time, a rule that is not a JSON object, an empty creator or App Store environment, a product over
    /// 200 bytes; `unknownEnvironment`, `changeNotFound` (or a change of another environment), `versionNotFound`.
    @discardableResult
    public func createGuard(_ new: NewGuard) throws -> GuardRecord {
        guard new.changeID != nil || new.version != nil else {
            throw FlagStoreError.invalidArgument(name: "change", reason: "a guard watches a change or a version")
        }
        if new.version != nil, new.publishedAtMilliseconds == nil {
            throw FlagStoreError.invalidArgument(name: "publishedAt", reason: "a watched version has a publication time")
        }
        guard case .object = new.rule else { throw FlagStoreError.invalidArgument(name: "rule", reason: "must be a JSON object") }
        try Self.requireNonEmpty(new.createdBy, name: "createdBy")
        try Self.requireNonEmpty(new.appStoreEnvironment, name: "appStoreEnvironment")
        if let product = new.product { try Self.requireNonEmpty(product, name: "product") }
        let now = currentMilliseconds()
        let status: GuardStatus = new.version == nil ? .waiting : .watching
        return try write { database in
            try database.transaction(.write) {
                let environmentID = try Self.environmentID(database, new.environment)
                if let changeID = new.changeID {
                    let change = try Self.fetchChange(database, id: changeID)
                    guard change.environment == new.environment else { throw FlagStoreError.changeNotFound(id: changeID) }
                }
                if let version = new.version {
                    guard try database.queryFirst("SELECT 1 FROM versions WHERE environment_id = ? AND number = ?",
                                                  [.integer(environmentID), .integer(Int64(version))], row: { $0.int(0) }) != nil else {
                        throw FlagStoreError.versionNotFound(environment: new.environment, number: version)
                    }
                }
                let inserted = try database.insert("""
                    INSERT INTO guards (environment_id, change_id, version, product, appstore_environment, rule,
                                        created_by, created_at, published_at, status)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(environmentID), new.changeID.map(DatabaseValue.integer) ?? .null, .optionalInteger(new.version),
                          .optionalText(new.product), .text(new.appStoreEnvironment),
                          .text(StoredJSON.text(new.rule)), .text(new.createdBy), .integer(now),
                          new.publishedAtMilliseconds.map(DatabaseValue.integer) ?? .null, .text(status.rawValue)])
                guard let id = inserted else { throw Self.noRowID("guards") }
                let on = new.version.map { "version \($0)" } ?? "change \(new.changeID ?? 0)"
                try Self.audit(database, AuditRecord(
                    actor: new.createdBy, action: "guard.add", environment: new.environment, target: String(id), client: new.client,
                    version: new.version, detail: "on \(on): \(StoredJSON.text(new.rule))"), now: now)
                return try Self.fetchGuard(database, id: id)
            }
        }
    }

    /// Guard `id`; `guardNotFound` when there is none.
    public func guardRecord(id: Int64) throws -> GuardRecord {
        try read { database in try Self.fetchGuard(database, id: id) }
    }

    /// The guards of `environment` (every environment when nil) in `statuses` (all when nil), newest first, at most
    /// `limit` (1...1000; `invalidArgument` otherwise).
    public func guards(environment: String? = nil, statuses: Set<GuardStatus>? = nil, limit: Int = 1000) throws -> [GuardRecord] {
        guard (1...1000).contains(limit) else {
            throw FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(limit)")
        }
        return try read { database in
            var conditions: [String] = []
            var arguments: [DatabaseValue] = []
            if let environment {
                conditions.append("g.environment_id = ?")
                arguments.append(.integer(try Self.environmentID(database, environment)))
            }
            if let statuses {
                guard !statuses.isEmpty else { return [] }
                conditions.append("g.status IN (\(GuardStatus.sqlList(statuses)))")
            }
            arguments.append(.integer(Int64(limit)))
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try database.query("""
                SELECT \(GuardRecord.columns) FROM guards g JOIN environments e ON e.id = g.environment_id
                \(filter) ORDER BY g.id DESC LIMIT ?
                """, arguments) { try GuardRecord(row: $0) }
        }
    }

    /// How many guards are in each status (for `/metrics`).
    public func guardCounts() throws -> [GuardStatus: Int] {
        try read { database in
            var counts: [GuardStatus: Int] = [:]
            for (name, count) in try database.query("SELECT status, count(*) FROM guards GROUP BY status", row: { ($0.text(0), $0.int(1)) }) {
                if let status = GuardStatus(rawValue: name) { counts[status] = count }
            }
            return counts
        }
    }

    /// The audited decisions of guard `id` (`guard.held`, `guard.tripped`, `guard.acted`, `guard.closed`), newest
    /// first, at most `limit`.
    public func guardDecisions(id: Int64, limit: Int = 200) throws -> [AuditEntry] {
        guard limit > 0 else { return [] }
        return try auditEntries(target: String(id), actions: Self.guardDecisionActions, limit: min(limit, 1000))
    }

    /// The audit actions of a guard's decisions (actor `guard`).
    public static let guardDecisionActions = ["guard.held", "guard.tripped", "guard.acted", "guard.closed"]

    /// A waiting guard's change was applied: it watches `version` from `publishedAt` (waiting → watching).
    public func startWatching(id: Int64, version: Int, publishedAt: Int64) throws -> GuardTransition {
        try guardTransition(id: id, from: [.waiting], set: "status = 'watching', version = ?, published_at = ?",
                            arguments: [.integer(Int64(version)), .integer(publishedAt)],
                            audit: nil)
    }

    /// A waiting guard's change ended without being applied (waiting → cancelled).
    public func cancelGuard(id: Int64) throws -> GuardTransition {
        try guardTransition(id: id, from: [.waiting], set: "status = 'cancelled'", arguments: [], audit: nil)
    }

    /// Keeps a watching guard's last decision (`decision`, evaluated at `at` on the jobs' clock). With `auditHours`, the
    /// decision is audited (`audit`) only when it is the first one for that many watched hours: the compare-and-set on
    /// `last_audited_hours` makes a `held` line at most once per complete hour, whichever node or pass evaluates.
    /// Returns whether the audit line was written.
    @discardableResult
    public func recordGuardDecision(id: Int64, decision: JSONValue, at: Int64, auditHours: Int?,
                                    audit: AuditRecord?) throws -> Bool {
        try write { database in
            try database.transaction(.write) {
                let updated = try database.run("""
                    UPDATE guards SET last_decision = ?, last_evaluated_at = ? WHERE id = ? AND status = 'watching'
                    """, [.text(StoredJSON.text(decision)), .integer(at), .integer(id)])
                guard updated == 1, let auditHours, let audit else { return false }
                let claimed = try database.run("""
                    UPDATE guards SET last_audited_hours = ?
                    WHERE id = ? AND (last_audited_hours IS NULL OR last_audited_hours <> ?)
                    """, [.integer(Int64(auditHours)), .integer(id), .integer(Int64(auditHours))])
                guard claimed == 1 else { return false }
                try Self.audit(database, audit)
                return true
            }
        }
    }

    /// The guard tripped at `at` on `decision` (watching → tripped), with its `guard.tripped` line.
    public func tripGuard(id: Int64, decision: JSONValue, at: Int64, audit: AuditRecord) throws -> GuardTransition {
        try guardTransition(id: id, from: [.watching],
                            set: "status = 'tripped', tripped_at = ?, last_decision = ?, last_evaluated_at = ?",
                            arguments: [.integer(at), .text(StoredJSON.text(decision)), .integer(at)], audit: { _ in audit })
    }

    /// The guard's window ended without a trip (watching → closed), with its `guard.closed` line.
    public func closeGuard(id: Int64, decision: JSONValue?, at: Int64, audit: AuditRecord) throws -> GuardTransition {
        try guardTransition(id: id, from: [.watching], set: "status = 'closed', last_decision = coalesce(?, last_decision), last_evaluated_at = ?",
                            arguments: [.optionalText(decision.map(StoredJSON.text)), .integer(at)], audit: { _ in audit })
    }

    /// What was done about a trip (`action`: kind, outcome, version, changes, reason), with its `guard.acted` line;
    /// refused unless the guard is tripped.
    public func recordGuardAction(id: Int64, action: JSONValue, audit: AuditRecord) throws -> GuardTransition {
        try guardTransition(id: id, from: [.tripped], set: "action = ?", arguments: [.text(StoredJSON.text(action))],
                            audit: { _ in audit })
    }

    /// A second person overrode the trip (tripped → overridden), with the `guard.override` line by `actor`. The
    /// second-person rule is the service's (it knows the token); the store keeps the status. The schedules the guard
    /// held are released in the same transaction.
    public func overrideGuard(id: Int64, actor: String, message: String, at: Int64, client: String? = nil,
                              detail: String = "") throws -> GuardTransition {
        try Self.requireNonEmpty(actor, name: "actor")
        try Self.requireNonEmpty(message, name: "message", maxLength: 10_000)
        return try guardTransition(
            id: id, from: [.tripped], set: "status = 'overridden', overridden_by = ?, overridden_at = ?, override_message = ?",
            arguments: [.text(actor), .integer(at), .text(message)], releaseHeld: true) { record in
                AuditRecord(actor: actor, action: "guard.override", environment: record.environment, target: String(id), client: client,
                            detail: detail.isEmpty ? message : "\(message) (\(detail))")
            }
    }

    /// A person removed the guard while it was waiting or watching (→ removed), with the `guard.remove` line.
    public func removeGuard(id: Int64, actor: String, client: String? = nil) throws -> GuardTransition {
        try Self.requireNonEmpty(actor, name: "actor")
        return try guardTransition(id: id, from: GuardStatus.removable, set: "status = 'removed'", arguments: [],
                                   releaseHeld: true) { record in
            AuditRecord(actor: actor, action: "guard.remove", environment: record.environment, target: String(id), client: client,
                        version: record.version, detail: record.changeID.map { "guard on change \($0) removed" } ?? "guard removed")
        }
    }

    /// Holds every `scheduled` change of `environment` that no guard holds yet for guard `guardID`: they are not
    /// published when due (`dueChanges`) until the guard is overridden or removed. Returns their ids, oldest first.
    public func holdScheduledChanges(environment: String, guardID: Int64) throws -> [Int64] {
        try write { database in
            try database.transaction(.write) {
                let environmentID = try Self.environmentID(database, environment)
                // One statement that holds and names them (`RETURNING`, which both engines know).
                let ids = try database.query("""
                    UPDATE changes SET held_by_guard = ? WHERE environment_id = ? AND status = 'scheduled' AND held_by_guard IS NULL
                    RETURNING id
                    """, [.integer(guardID), .integer(environmentID)]) { $0.int64(0) }.sorted()
                if !ids.isEmpty { try Self.notifyChange(database, environment: environment) }
                return ids
            }
        }
    }

    private static func releaseHeld(_ database: Database, guardID: Int64) throws -> [Int64] {
        let held = try database.query("""
            SELECT c.id, e.name FROM changes c JOIN environments e ON e.id = c.environment_id WHERE c.held_by_guard = ? ORDER BY c.id
            """, [.integer(guardID)]) { (id: $0.int64(0), environment: $0.text(1)) }
        guard !held.isEmpty else { return [] }
        try database.run("UPDATE changes SET held_by_guard = NULL WHERE held_by_guard = ?", [.integer(guardID)])
        for environment in Set(held.map(\.environment)) { try notifyChange(database, environment: environment) }
        return held.map(\.id)
    }

    /// Guard `id` inside the caller's transaction; `guardNotFound` when there is none.
    static func fetchGuard(_ database: Database, id: Int64) throws -> GuardRecord {
        guard let record = try database.queryFirst("""
            SELECT \(GuardRecord.columns) FROM guards g JOIN environments e ON e.id = g.environment_id WHERE g.id = ?
            """, [.integer(id)], row: { try GuardRecord(row: $0) }) else {
            throw FlagStoreError.guardNotFound(id: id)
        }
        return record
    }

    /// The compare-and-set: `assignments` applied only while the status is in `allowed`; then the audit line built
    /// from the updated record (none when nil) and, with `releaseHeld`, the release of the schedules it held.
    private func guardTransition(id: Int64, from allowed: Set<GuardStatus>, set assignments: String, arguments: [DatabaseValue],
                                 releaseHeld: Bool = false, audit: ((GuardRecord) -> AuditRecord)?) throws -> GuardTransition {
        try write { database in
            try database.transaction(.write) {
                let changed = try database.run("""
                    UPDATE guards SET \(assignments) WHERE id = ? AND status IN (\(GuardStatus.sqlList(allowed)))
                    """, arguments + [.integer(id)])
                let record = try Self.fetchGuard(database, id: id)
                guard changed == 1 else { return .refused(record) }
                if releaseHeld { _ = try Self.releaseHeld(database, guardID: id) }
                if let audit { try Self.audit(database, audit(record)) }
                return .done(record)
            }
        }
    }
}
