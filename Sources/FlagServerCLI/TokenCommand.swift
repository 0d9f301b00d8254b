import CommandLineKit
import FlagStore

/// `flagserver token create|list|revoke`: API tokens, stored only as SHA-256 hashes, so a secret is shown once.
public enum TokenCommand {
    /// The `token` word and its three commands.
    static var group: CommandGroup<FlagServerContext> {
        CommandGroup(name: "token", abstract: "Create, list and revoke API tokens (stored only as hashes).",
                     subcommands: [.command(Create.self), .command(List.self), .command(Revoke.self)])
    }

    /// `--name NAME`, required.
    static let nameOption = Option<String>("name", valueName: "name", help: "The token's name (recorded as the author of what it publishes).",
                                           required: true)

    /// `flagserver token create --name NAME --role reader|writer|admin`.
    public struct Create: AdminCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "create", abstract: "Create a token; prints its secret once.", options: [nameOption, roleOption])

        static let roleOption = Option("role", valueName: "reader|writer|admin", help: "What the token may do.", required: true) {
            text throws(UsageError) in
            guard let role = TokenRole(rawValue: text) else { throw UsageError("--role '\(text)' is not reader, writer or admin") }
            return role
        }

        /// The token's name.
        public let name: String
        /// What it may do.
        public let role: TokenRole

        /// A token to create.
        public init(name: String, role: TokenRole) {
            self.name = name
            self.role = role
        }

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            self.init(name: try parsed.required(nameOption), role: try parsed.required(Self.roleOption))
        }

        /// Creates it; the output holds the secret, on a line of its own.
        public func run(store: FlagStore, actor: String) throws -> String {
            let (secret, record) = try store.createToken(name: name, role: role, actor: actor)
            return """
                created token '\(record.name)' (role \(record.role.rawValue)). Its secret, shown only now:
                \(secret)

                """
        }
    }

    /// `flagserver token list [--all]`.
    public struct List: AdminCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "list", abstract: "List active tokens: names, roles, creation times (never secrets).", options: [allFlag])

        static let allFlag = Flag("all", help: "Also revoked tokens.")

        /// Whether revoked tokens are listed too.
        public let includeRevoked: Bool

        /// A listing.
        public init(includeRevoked: Bool) { self.includeRevoked = includeRevoked }

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) { includeRevoked = parsed.isSet(Self.allFlag) }

        /// `NAME ROLE CREATED REVOKED`, tab-separated.
        public func run(store: FlagStore, actor: String) throws -> String {
            let tokens = try store.listTokens(includeRevoked: includeRevoked)
            var lines = ["NAME\tROLE\tCREATED\tREVOKED"]
            for token in tokens {
                lines.append([token.name, token.role.rawValue, AdminTime.timestamp(token.createdAtMilliseconds),
                              token.revokedAtMilliseconds.map(AdminTime.timestamp) ?? "-"].joined(separator: "\t"))
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `flagserver token revoke --name NAME`.
    public struct Revoke: AdminCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "revoke", abstract: "Revoke the active token NAME; it stops working at once.", options: [nameOption])

        /// The token's name.
        public let name: String

        /// A token to revoke.
        public init(name: String) { self.name = name }

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) { name = try parsed.required(nameOption) }

        /// Revokes it.
        public func run(store: FlagStore, actor: String) throws -> String {
            let record = try store.revokeToken(name: name, actor: actor)
            return "revoked token '\(record.name)'\n"
        }
    }
}
