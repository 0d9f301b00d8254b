import FlagKit

/// Environment policies (`docs/governance.md`, "Policies"): one canonical JSON policy per environment, changed only
/// with an audit line in the same transaction.
extension FlagStore {
    /// The policy in force for `environment`: the stored one, or `EnvironmentPolicy.default`
    /// (`unknownEnvironment` when there is no such environment).
    public func policy(environment: String) throws -> EnvironmentPolicy {
        try policyRecord(environment: environment).policy
    }

    /// The policy in force for `environment` with who set it and when.
    public func policyRecord(environment: String) throws -> PolicyRecord {
        try read { database in try Self.fetchPolicy(database, environment: environment) }
    }

    /// Every environment's policy in force, by environment name.
    public func policies() throws -> [PolicyRecord] {
        try read { database in
            try database.query("""
                SELECT e.name AS environment, p.policy AS policy, p.updated_at AS updated_at, p.updated_by AS updated_by
                FROM environments e LEFT JOIN policies p ON p.environment_id = e.id ORDER BY e.name
                """) { try Self.policyRecord(from: $0) }
        }
    }

    /// Sets `environment`'s policy (stored canonically) and appends `policy.update` with the old and the new
    /// policy as the detail (`{"new": ..., "old": ...}`, canonical JSON), in one transaction.
    @discardableResult
    public func setPolicy(environment: String, policy: EnvironmentPolicy, actor: String,
                          client: String? = nil) throws -> PolicyRecord {
        try Self.requireNonEmpty(actor, name: "actor")
        let now = currentMilliseconds()
        return try write { database in
            try database.transaction(.write) {
                let old = try Self.fetchPolicy(database, environment: environment)
                _ = try Self.storePolicy(database, environment: environment, policy: policy, actor: actor, now: now, replace: true)
                let detail: JSONValue = ["old": old.policy.jsonValue, "new": policy.jsonValue]
                try Self.audit(database, AuditRecord(actor: actor, action: "policy.update", environment: environment,
                                                     target: environment, client: client, detail: detail.canonicalString), now: now)
                return try Self.fetchPolicy(database, environment: environment)
            }
        }
    }

    /// Sets `environment`'s policy only when none was ever set (first start: `flags/policy/<env>.json` seeds each
    /// environment without one). Returns whether it was set; the audit line (`policy.update`) only then.
    @discardableResult
    public func seedPolicy(environment: String, policy: EnvironmentPolicy, actor: String) throws -> Bool {
        try Self.requireNonEmpty(actor, name: "actor")
        let now = currentMilliseconds()
        return try write { database in
            try database.transaction(.write) {
                guard try Self.storePolicy(database, environment: environment, policy: policy, actor: actor, now: now,
                                           replace: false) else { return false }
                let detail: JSONValue = ["old": EnvironmentPolicy.default.jsonValue, "new": policy.jsonValue]
                try Self.audit(database, AuditRecord(actor: actor, action: "policy.update", environment: environment,
                                                     target: environment, detail: detail.canonicalString), now: now)
                return true
            }
        }
    }

    /// Writes the policy row; returns whether a row was written (`replace: false` keeps an existing one).
    private static func storePolicy(_ database: Database, environment: String, policy: EnvironmentPolicy, actor: String,
                                    now: Int64, replace: Bool) throws -> Bool {
        let environmentID = try environmentID(database, environment)
        let conflict = replace
            ? "DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by"
            : "DO NOTHING"
        return try database.run("""
            INSERT INTO policies (environment_id, policy, updated_at, updated_by) VALUES (?, ?, ?, ?)
            ON CONFLICT (environment_id) \(conflict)
            """, [.integer(environmentID), .text(String(decoding: policy.canonicalBytes, as: UTF8.self)), .integer(now),
                  .text(actor)]) == 1
    }

    private static func fetchPolicy(_ database: Database, environment: String) throws -> PolicyRecord {
        let environmentID = try environmentID(database, environment)
        return try database.queryFirst("""
            SELECT ? AS environment, policy, updated_at, updated_by FROM policies WHERE environment_id = ?
            """, [.text(environment), .integer(environmentID)]) { try policyRecord(from: $0) }
            ?? PolicyRecord(environment: environment, policy: .default, updatedAtMilliseconds: nil, updatedBy: nil)
    }

    /// A row of `policies` (or of the LEFT JOIN, NULL when none was set).
    private static func policyRecord(from row: Row) throws -> PolicyRecord {
        let environment = try row.text("environment")
        guard let text = try row.optionalText("policy") else {
            return PolicyRecord(environment: environment, policy: .default, updatedAtMilliseconds: nil, updatedBy: nil)
        }
        let policy: EnvironmentPolicy
        do {
            policy = try EnvironmentPolicy.decode(Array(text.utf8))
        } catch {
            throw StoredJSON.corrupt("the policy of \(environment) does not read back: \(error)")
        }
        return PolicyRecord(environment: environment, policy: policy, updatedAtMilliseconds: try row.int64("updated_at"),
                            updatedBy: try row.text("updated_by"))
    }
}
