/// What `FlagStore.copy(toPostgres:actor:)` copied and verified: rows by table, the epoch kept, how many version
/// hashes were recomputed from PostgreSQL's bytes, and how long it took.
public struct CopyReport: Sendable, Equatable {
    /// The SQLite file copied.
    public let source: String
    /// The PostgreSQL database written (password masked, `FlagStore.displayName(of:)`).
    public let target: String
    /// Rows copied, by table: every table of the schema, also empty ones (the `database.copy` audit line the
    /// copy appends afterwards is not counted).
    public let rows: [String: Int]
    /// Tokens among `rows["tokens"]` that were revoked (they stay revoked).
    public let revokedTokens: Int
    /// The epoch, the same on both sides, so apps keep accepting the version numbers they hold.
    public let epoch: Int64
    /// Versions whose document, read back from PostgreSQL inside the copy's transaction, hashed to its stored
    /// content hash (all of them, or the copy would have failed).
    public let verifiedHashes: Int
    /// From opening the target to the check after the commit.
    public let seconds: Double

    /// A report; see each property.
    public init(source: String, target: String, rows: [String: Int], revokedTokens: Int, epoch: Int64, verifiedHashes: Int,
                seconds: Double) {
        self.source = source
        self.target = target
        self.rows = rows
        self.revokedTokens = revokedTokens
        self.epoch = epoch
        self.verifiedHashes = verifiedHashes
        self.seconds = seconds
    }

    /// The tables `summary` names in words; any other table is listed by name with its row count.
    static let namedTables: Set<String> = ["environments", "versions", "tokens", "audit", "changes", "policies", "webhooks",
                                            "webhook_deliveries", "webhook_attempts", "meta",
                                            "appstore_notifications", "appstore_keys", "guards"]

    /// Two lines: what was copied from where to where, and what was verified.
    ///
    /// `copied 120 versions in 4 environments (epoch 1764000000000), 5 tokens (2 revoked), 230 audit records,
    /// 9 changes, 1 policy, 2 webhooks, 6 webhook deliveries with 8 attempts, 40 App Store notifications with the
    /// subscription hash's key`, then `from A into B`, then
    /// `every row compared, every version's hash verified (120 of 120), in 1.23 s`.
    public var summary: String {
        func count(_ table: String, _ one: String, _ many: String) -> String {
            let number = rows[table] ?? 0
            return "\(number) \(number == 1 ? one : many)"
        }
        var parts = [
            "\(count("versions", "version", "versions")) in \(count("environments", "environment", "environments")) (epoch \(epoch))",
            count("tokens", "token", "tokens") + ((rows["tokens"] ?? 0) > 0 ? " (\(revokedTokens) revoked)" : ""),
            count("audit", "audit record", "audit records"),
            count("changes", "change", "changes"),
            count("policies", "policy", "policies"),
            count("webhooks", "webhook", "webhooks"),
            count("webhook_deliveries", "webhook delivery", "webhook deliveries") + " with "
                + count("webhook_attempts", "attempt", "attempts"),
        ]
        // Named only where the schema has them (a report of an older schema's copy stays as it was).
        if rows["appstore_notifications"] != nil {
            parts.append(count("appstore_notifications", "App Store notification", "App Store notifications")
                + ((rows["appstore_keys"] ?? 0) > 0 ? " with the subscription hash's key" : ""))
        }
        if let guards = rows["guards"] { parts.append("\(guards) \(guards == 1 ? "guard" : "guards")") }
        parts += rows.keys.filter { !Self.namedTables.contains($0) }.sorted().map { "\(rows[$0] ?? 0) rows of \($0)" }
        let time = (seconds * 100).rounded() / 100
        return """
            copied \(parts.joined(separator: ", "))
            from \(source) into \(target);
            every row compared, every version's hash verified (\(verifiedHashes) of \(rows["versions"] ?? 0)), in \(time) s

            """
    }
}
