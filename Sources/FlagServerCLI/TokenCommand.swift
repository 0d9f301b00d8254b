import CommandLineKit
import FlagKit
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

    /// `flagserver token create --name NAME --role reader|writer|admin [--env ENV]...`.
    public struct Create: AdminCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "create", abstract: "Create a token; prints its secret once.",
            discussion: "--env limits the token to environments (repeat it for several); without it the token may act on every "
                + "environment, also ones created later. A scoped token gets 403 on other environments and on routes that span "
                + "environments (audit, webhooks).",
            options: [nameOption, roleOption, environmentOption])

        static let roleOption = Option("role", valueName: "reader|writer|admin", help: "What the token may do.", required: true) {
            text throws(UsageError) in
            guard let role = TokenRole(rawValue: text) else { throw UsageError("--role '\(text)' is not reader, writer or admin") }
            return role
        }

        /// `--env NAME`, repeatable: the environments the token is limited to.
        static let environmentOption = Option<String>(
            "env", valueName: "name", help: "An environment the token is limited to (repeat for several; default: all).", repeatable: true)

        /// The token's name.
        public let name: String
        /// What it may do.
        public let role: TokenRole
        /// The environments it is limited to; nil: all.
        public let environments: Set<String>?

        /// A token to create.
        public init(name: String, role: TokenRole, environments: Set<String>? = nil) {
            self.name = name
            self.role = role
            self.environments = environments
        }

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            let environments = try parsed.values(Self.environmentOption)
            self.init(name: try parsed.required(nameOption), role: try parsed.required(Self.roleOption),
                      environments: environments.isEmpty ? nil : Set(environments))
        }

        /// Creates it; the output holds the secret, on a line of its own. An environment that does not exist is
        /// refused by the store (`unknownEnvironment`, naming the known ones) and nothing is created.
        public func run(store: FlagStore, actor: String) throws -> String {
            let (secret, record) = try store.createToken(name: name, role: role, environments: environments, actor: actor)
            let scope = record.environments.map { ", environments \($0.sorted().joined(separator: ", "))" } ?? ""
            return """
                created token '\(record.name)' (role \(record.role.rawValue)\(scope)). Its secret, shown only now:
                \(secret)

                """
        }
    }

    /// `flagserver token list [--all]`.
    public struct List: AdminCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "list", abstract: "List active tokens: names, roles, creation times (never secrets).", options: [allSwitch])

        static let allSwitch = Switch("all", help: "Also revoked tokens.")

        /// Whether revoked tokens are listed too.
        public let includeRevoked: Bool

        /// A listing.
        public init(includeRevoked: Bool) { self.includeRevoked = includeRevoked }

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) { includeRevoked = parsed.isSet(Self.allSwitch) }

        /// `NAME ROLE CREATED REVOKED ENVIRONMENTS`, tab-separated; `*` for a token of every environment.
        public func run(store: FlagStore, actor: String) throws -> String {
            let tokens = try store.listTokens(includeRevoked: includeRevoked)
            var lines = ["NAME\tROLE\tCREATED\tREVOKED\tENVIRONMENTS"]
            for token in tokens {
                lines.append([token.name, token.role.rawValue, RFC3339.string(milliseconds: token.createdAtMilliseconds),
                              token.revokedAtMilliseconds.map(RFC3339.string(milliseconds:)) ?? "-",
                              token.environments.map { $0.sorted().joined(separator: ",") } ?? "*"].joined(separator: "\t"))
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `flagserver token revoke NAME` (or `--name NAME`, as `create` takes it).
    public struct Revoke: AdminCommand {
        /// Name, abstract, options and argument.
        public static let configuration = CommandConfiguration(
            name: "revoke", abstract: "Revoke the active token NAME; it stops working at once.",
            options: [revokedNameOption], arguments: [nameArgument])

        /// `--name NAME`: the same as the argument, for scripts written against `create`'s spelling.
        static let revokedNameOption = Option<String>("name", valueName: "name", help: "The token's name (the same as NAME).")
        /// `NAME`.
        static let nameArgument = Argument("name", .optional, help: "The token's name.")

        /// The token's name.
        public let name: String

        /// A token to revoke.
        public init(name: String) { self.name = name }

        /// From the parsed command line: the name as an argument or as `--name`, once.
        public init(parsed: ParsedArguments) throws(UsageError) {
            switch (try parsed.value(Self.nameArgument), try parsed.value(Self.revokedNameOption)) {
            case (let name?, nil), (nil, let name?): self.name = name
            case (_?, _?): throw UsageError("give the token's name once: as NAME or as --name NAME")
            case (nil, nil): throw UsageError("missing the token's name: flagserver token revoke NAME")
            }
        }

        /// Revokes it.
        public func run(store: FlagStore, actor: String) throws -> String {
            let record = try store.revokeToken(name: name, actor: actor)
            return "revoked token '\(record.name)'\n"
        }
    }
}
