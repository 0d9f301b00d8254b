import CommandLineKit
import FlagStore

/// `flagserver check`: `PRAGMA integrity_check`, then every version's document against its content hash.
public struct CheckCommand: AdminCommand {
    /// Name and abstract.
    public static let configuration = CommandConfiguration(
        name: "check", abstract: "PRAGMA integrity_check and every version's content hash; exits 1 on any damage.")

    /// The check.
    public init() {}

    /// From the parsed command line (nothing to read).
    public init(parsed: ParsedArguments) throws(UsageError) {}

    /// `ok`, or throws `database` naming the damage, so the process exits non-zero.
    public func run(store: FlagStore, actor: String) throws -> String {
        let result = try store.integrityCheck()
        guard result == ["ok"] else {
            throw FlagStoreError.database(DatabaseError(
                extendedResultCode: 11, message: "integrity_check: " + result.joined(separator: "; "), sql: "PRAGMA integrity_check"))
        }
        // SQLite's check sees pages, not content: a document rewritten in place passes it.
        let damaged = try store.damagedVersions()
        if let first = damaged.first {
            let more = damaged.count > 1 ? " (and \(damaged.count - 1) more damaged version\(damaged.count > 2 ? "s" : ""))" : ""
            throw FlagStoreError.database(DatabaseError(extendedResultCode: 11, message: "content hashes: \(first)\(more)", sql: nil))
        }
        return "ok\n"
    }
}
