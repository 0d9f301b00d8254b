import Foundation

/// The store's admin subcommands, as `flagserver` exposes them: parsing and running, output as text.
///
/// `flagserver` passes the words after its own name (`token create --name ci --role writer`) to `parse`,
/// opens the store, and prints what `run` returns; a thrown `FlagStoreError` goes to stderr with exit 1
/// (exit 2 for `invalidArgument` from `parse`, like a usage error).
public enum AdminCommand: Sendable, Equatable {
    /// `token create --name NAME --role reader|writer|admin`
    case tokenCreate(name: String, role: TokenRole)
    /// `token list [--all]`
    case tokenList(includeRevoked: Bool)
    /// `token revoke --name NAME`
    case tokenRevoke(name: String)
    /// `backup --to FILE`
    case backup(destination: String)
    /// `check`: `PRAGMA integrity_check`, then every version's document against its content hash.
    case check
    /// `restore --from FILE`: the backup's content replaces the database's, in a new epoch.
    case restore(source: String)

    /// How to call the admin subcommands, for `--help` and usage errors.
    public static let usage = """
        flagserver token create --name NAME --role reader|writer|admin   create a token; prints its secret once
        flagserver token list [--all]                                    list active tokens (--all: also revoked)
        flagserver token revoke --name NAME                              revoke the active token NAME
        flagserver backup --to FILE                                      consistent copy while the server runs
        flagserver check                                                 PRAGMA integrity_check and every version's content hash
        flagserver restore --from FILE                                   replace the database by a backup (server stopped); new epoch
        """

    /// Whether `arguments` (without the program name) start with an admin subcommand.
    public static func isAdminCommand(_ arguments: [String]) -> Bool {
        ["token", "backup", "check", "restore"].contains(arguments.first ?? "")
    }

    /// Parses `arguments` (without the program name); `invalidArgument` names what is wrong.
    public static func parse(_ arguments: [String]) throws -> AdminCommand {
        var words = arguments[...]
        let command = words.popFirst()
        switch command {
        case "token":
            let action = words.popFirst()
            let options = try options(words, allowed: action == "list" ? ["--all"] : ["--name", "--role"],
                                      flags: ["--all"])
            switch action {
            case "create":
                let name = try required(options, "--name")
                let roleText = try required(options, "--role")
                guard let role = TokenRole(rawValue: roleText) else {
                    throw FlagStoreError.invalidArgument(name: "--role", reason: "'\(roleText)' is not reader, writer or admin")
                }
                return .tokenCreate(name: name, role: role)
            case "list":
                return .tokenList(includeRevoked: options["--all"] != nil)
            case "revoke":
                guard options["--role"] == nil else {
                    throw FlagStoreError.invalidArgument(name: "--role", reason: "not an option of token revoke")
                }
                return .tokenRevoke(name: try required(options, "--name"))
            default:
                throw FlagStoreError.invalidArgument(name: "token", reason: "expected create, list or revoke, got '\(action ?? "")'")
            }
        case "backup":
            return .backup(destination: try required(try options(words, allowed: ["--to"], flags: []), "--to"))
        case "check":
            _ = try options(words, allowed: [], flags: [])
            return .check
        case "restore":
            return .restore(source: try required(try options(words, allowed: ["--from"], flags: []), "--from"))
        default:
            throw FlagStoreError.invalidArgument(name: "command", reason: "unknown admin command '\(command ?? "")'")
        }
    }

    /// Runs the command against `store`, recording `actor` in the audit log; returns the text to print.
    ///
    /// `check` throws `database` when the check finds problems, so the process exits non-zero.
    public func run(store: FlagStore, actor: String) throws -> String {
        switch self {
        case .tokenCreate(let name, let role):
            let (secret, record) = try store.createToken(name: name, role: role, actor: actor)
            return """
                created token '\(record.name)' (role \(record.role.rawValue)). Its secret, shown only now:
                \(secret)

                """
        case .tokenList(let includeRevoked):
            let tokens = try store.listTokens(includeRevoked: includeRevoked)
            var lines = ["NAME\tROLE\tCREATED\tREVOKED"]
            for token in tokens {
                lines.append([token.name, token.role.rawValue, Self.timestamp(token.createdAtMilliseconds),
                              token.revokedAtMilliseconds.map(Self.timestamp) ?? "-"].joined(separator: "\t"))
            }
            return lines.joined(separator: "\n") + "\n"
        case .tokenRevoke(let name):
            let record = try store.revokeToken(name: name, actor: actor)
            return "revoked token '\(record.name)'\n"
        case .backup(let destination):
            try store.backup(to: destination)
            return "backup written to \(destination)\n"
        case .check:
            let result = try store.integrityCheck()
            guard result == ["ok"] else {
                throw FlagStoreError.database(DatabaseError(
                    extendedResultCode: 11, message: "integrity_check: " + result.joined(separator: "; "), sql: "PRAGMA integrity_check"))
            }
            // SQLite's check sees pages, not content: a document rewritten in place passes it.
            let damaged = try store.damagedVersions()
            if let first = damaged.first {
                let more = damaged.count > 1 ? " (and \(damaged.count - 1) more damaged version\(damaged.count > 2 ? "s" : ""))" : ""
                throw FlagStoreError.database(DatabaseError(
                    extendedResultCode: 11, message: "content hashes: \(first)\(more)", sql: nil))
            }
            return "ok\n"
        case .restore(let source):
            let epoch = try store.restore(from: source, actor: actor)
            let versions = try store.latestVersions().map { "\($0.key)=\($0.value.number)" }.sorted().joined(separator: ",")
            return "restored \(source) into \(store.path): versions \(versions.isEmpty ? "none" : versions), epoch \(epoch)\n"
        }
    }

    /// `--key value` pairs and bare `flags`; anything else, a repeat or a missing value is refused.
    private static func options(_ words: ArraySlice<String>, allowed: Set<String>, flags: Set<String>) throws -> [String: String] {
        var result: [String: String] = [:]
        var words = words
        while let word = words.popFirst() {
            guard allowed.contains(word) else {
                throw FlagStoreError.invalidArgument(name: word, reason: "unexpected argument")
            }
            guard result[word] == nil else { throw FlagStoreError.invalidArgument(name: word, reason: "given twice") }
            if flags.contains(word) {
                result[word] = ""
            } else {
                guard let value = words.popFirst(), !value.hasPrefix("--") else {
                    throw FlagStoreError.invalidArgument(name: word, reason: "needs a value")
                }
                result[word] = value
            }
        }
        return result
    }

    private static func required(_ options: [String: String], _ name: String) throws -> String {
        guard let value = options[name] else { throw FlagStoreError.invalidArgument(name: name, reason: "is required") }
        return value
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
