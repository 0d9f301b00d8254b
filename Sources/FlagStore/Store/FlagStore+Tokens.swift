import FlagKit
import Glibc

/// API tokens: random secrets shown once, stored only as SHA-256 hex, with a name and a role.
extension FlagStore {
    /// Every secret starts with this, so a leaked one is recognizable (secret scanners, logs).
    public static let tokenPrefix = "sfl_"

    /// SQLite: a file beside the database that each token created or revoked through the store grows by one byte,
    /// after the commit. A server's in-memory token table compares its size (`stat`) with the one it saw before
    /// loading: any other commit (every flip) leaves it alone, so a token missing from the table is unknown for sure
    /// while the file is unchanged. nil for PostgreSQL (other nodes: the database decides every miss).
    public var tokensStampPath: String? { engine.tokensStampPath }

    /// Grows `tokensStampPath` by one byte after a committed token change (its size, not its time, tells a change: two changes within one clock
    /// tick would leave the time alone). Best effort: if it cannot be written, the table's timed reload still finds
    /// the token.
    private func markTokensChanged() {
        guard let path = tokensStampPath else { return }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        var byte: UInt8 = 0x0A
        _ = Glibc.write(fd, &byte, 1)
        Glibc.close(fd)
    }

    /// Creates an active token and returns its secret (shown once: only its hash is kept) and its record.
    ///
    /// The secret is `sfl_` followed by 32 random bytes from the OS (`SystemRandomNumberGenerator`:
    /// getrandom(2) on Linux) in base64url without padding. `tokenNameTaken` when an active token has `name`.
    ///
    /// `environments` limits the token to those environments (`token create --env`); nil: every environment,
    /// also ones created later. An empty set is refused (`invalidArgument`: a token for nothing is a mistake),
    /// and so is a name that is no environment (`unknownEnvironment`, checked in the insert's transaction).
    /// The `token.create` audit line names the scope, and `client` (the address of an HTTP request) when given.
    public func createToken(name: String, role: TokenRole, environments: Set<String>? = nil,
                            actor: String = "admin", client: String? = nil) throws -> (secret: String, record: TokenRecord) {
        guard Self.isValidTokenName(name) else { throw FlagStoreError.invalidTokenName(name) }
        try Self.requireNonEmpty(actor, name: "actor")
        if environments?.isEmpty == true {
            throw FlagStoreError.invalidArgument(name: "environments", reason: "must name at least one environment (nil: all)")
        }
        let scope = environments.map { StoredJSON.text($0.sorted(by: JSONValue.utf8Order)) }
        var generator = SystemRandomNumberGenerator()
        let random = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret = Self.tokenPrefix + Self.base64URL(random)
        let hash = SHA256.hexDigest(Array(secret.utf8))
        let now = currentMilliseconds()
        let result = try write { database in
            try database.transaction {
                if let environments {
                    let known = try Self.environmentNames(database)
                    if let unknown = environments.sorted(by: JSONValue.utf8Order).first(where: { !known.contains($0) }) {
                        throw FlagStoreError.unknownEnvironment(unknown, known: known)
                    }
                }
                let id: Int64?
                do {
                    id = try database.insert("INSERT INTO tokens (name, role, secret_hash, created_at, environments) VALUES (?, ?, ?, ?, ?)",
                                     [.text(name), .text(role.rawValue), .text(hash), .integer(now), .optionalText(scope)])
                } catch let error as DatabaseError where error.isUniqueViolation {
                    throw FlagStoreError.tokenNameTaken(name)
                }
                guard let id else { throw Self.noRowID("tokens") }
                let record = TokenRecord(id: id, name: name, role: role,
                                         createdAtMilliseconds: now, revokedAtMilliseconds: nil, environments: environments)
                var detail = "name \(name) role \(role.rawValue)"
                if let environments { detail += " environments \(environments.sorted(by: JSONValue.utf8Order).joined(separator: ","))" }
                try Self.audit(database, AuditRecord(actor: actor, action: "token.create", target: name, client: client, detail: detail),
                               now: now)
                return (secret, record)
            }
        }
        markTokensChanged()
        return result
    }

    /// Tokens by name, active ones only unless `includeRevoked`.
    public func listTokens(includeRevoked: Bool = false) throws -> [TokenRecord] {
        try read { database in
            try database.query("""
                SELECT id, name, role, created_at, revoked_at, secret_hash, environments FROM tokens
                WHERE ? = 1 OR revoked_at IS NULL ORDER BY name, id
                """, [.integer(includeRevoked ? 1 : 0)]) { try Self.tokenRecord(from: $0) }
        }
    }

    /// Revokes the active token `name` (it stops authenticating at once) and returns its final record;
    /// `tokenNotFound` when no active token has that name. `client`: the address of an HTTP request, for the audit line.
    @discardableResult
    public func revokeToken(name: String, actor: String = "admin", client: String? = nil) throws -> TokenRecord {
        try Self.requireNonEmpty(actor, name: "actor")
        let now = currentMilliseconds()
        let result = try write { database in
            try database.transaction {
                let found = try database.queryFirst("""
                    SELECT id, name, role, created_at, revoked_at, secret_hash, environments FROM tokens
                    WHERE name = ? AND revoked_at IS NULL
                    """, [.text(name)]) { try Self.tokenRecord(from: $0) }
                guard let found else { throw FlagStoreError.tokenNotFound(name) }
                try database.run("UPDATE tokens SET revoked_at = ? WHERE id = ?", [.integer(now), .integer(found.id)])
                try Self.audit(database, AuditRecord(actor: actor, action: "token.revoke", target: name, client: client,
                                                                 detail: "name \(name)"),
                               now: now)
                return TokenRecord(id: found.id, name: found.name, role: found.role,
                                   createdAtMilliseconds: found.createdAtMilliseconds, revokedAtMilliseconds: now,
                                   environments: found.environments)
            }
        }
        markTokensChanged()
        return result
    }

    /// The active token whose secret this is, or nil (unknown, malformed or revoked).
    ///
    /// Timing: the secret is hashed first and the database is searched by that hash. Comparisons inside the
    /// index see only SHA-256 outputs, and an attacker cannot steer a hash's prefix towards a stored one
    /// without a preimage, so how long the search takes tells nothing about stored hashes. The hash that
    /// was found is then compared again with `constantTimeEquals`, so the decision itself never depends on
    /// where two byte strings first differ. For a lookup that never touches SQLite, use `tokenTable()`.
    public func authenticate(secret: String) throws -> TokenRecord? {
        guard secret.hasPrefix(Self.tokenPrefix), secret.utf8.count <= 200 else { return nil }
        let hash = SHA256.hexDigest(Array(secret.utf8))
        return try read { database in
            let row = try database.queryFirst("""
                SELECT id, name, role, created_at, revoked_at, secret_hash, environments FROM tokens
                WHERE secret_hash = ? AND revoked_at IS NULL
                """, [.text(hash)]) { (record: try Self.tokenRecord(from: $0), hash: try $0.text("secret_hash")) }
            guard let row, TokenTable.constantTimeEquals(Array(row.hash.utf8), Array(hash.utf8)) else { return nil }
            return row.record
        }
    }

    /// Every active token's hash and record, loaded once, for in-memory authentication.
    public func tokenTable() throws -> TokenTable {
        let entries = try read { database in
            try database.query("""
                SELECT id, name, role, created_at, revoked_at, secret_hash, environments FROM tokens WHERE revoked_at IS NULL
                """) { (hash: try $0.text("secret_hash"), record: try Self.tokenRecord(from: $0)) }
        }
        return TokenTable(entries: entries)
    }

    private static func tokenRecord(from row: Row) throws -> TokenRecord {
        guard let role = TokenRole(rawValue: try row.text("role")) else {
            // The CHECK constraint makes this unreachable unless the file was edited by hand.
            throw StoredJSON.corrupt("token \(try row.text("name")) has unknown role \(try row.text("role"))")
        }
        let environments = try row.optionalText("environments").map { text in
            Set(try StoredJSON.strings(text, column: "tokens.environments"))
        }
        return TokenRecord(id: try row.int64("id"), name: try row.text("name"), role: role,
                           createdAtMilliseconds: try row.int64("created_at"),
                           revokedAtMilliseconds: try row.optionalInt64("revoked_at"), environments: environments)
    }

    /// Whether `name` may name a token: 1...64 bytes of ASCII letters, digits, `.`, `_` and `-`.
    public static func isValidTokenName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        return bytes.allSatisfy { byte in
            (0x61...0x7a).contains(byte) || (0x41...0x5a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// RFC 4648 §5 base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0..<(chunk.count + 1) { out.append(alphabet[Int((value >> (18 - 6 * position)) & 0x3f)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
