import CommandLineKit
import FlagKit

/// `flagctl history ENV [--limit N]`: the published versions, newest first.
public struct HistoryCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "history",
        abstract: "List an environment's published versions: version, time, author, message, rollbacks.",
        discussion: """
        Newest first. A rollback shows which version's content it published again ('rollback to 3').
        Exit status: 0 listed, 2 the server cannot be reached or refuses.
        """,
        options: [limitOption, jsonSwitch],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// `--limit N`, 1 to 1000.
    static let limitOption = ServerCommandSupport.limitOption("How many versions, newest first (1 to 1000, default: 20).")
    /// `--json`.
    static let jsonSwitch = Switch("json", help: "Print the versions as a JSON array.")

    /// The environment.
    public let environment: String
    /// How many versions.
    public let limit: Int
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        json = parsed.isSet(Self.jsonSwitch)
        limit = try parsed.value(Self.limitOption) ?? 20
    }

    /// Fetches and prints the table.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let versions = try ServerCommandSupport.call { () throws(ServerError) in try client.history(environment, limit: limit) }
            if json {
                context.stdout.write(JSONValue.array(versions.map(\.json)).prettyString)
                return ExitStatus.success
            }
            context.stdout.write(Self.table(versions))
            return ExitStatus.success
        }
    }

    /// `VERSION  PUBLISHED  AUTHOR  MESSAGE` columns; the message last, as it is the only free text.
    static func table(_ versions: [PublishedVersion]) -> String {
        let rows = versions.map { version -> [String] in
            let rollback = version.rolledBackFrom.map { " (rollback to \($0))" } ?? ""
            return [String(version.version), version.publishedAt, version.author, version.message + rollback]
        }
        return TextTable.render(header: ["VERSION", "PUBLISHED", "AUTHOR", "MESSAGE"], rows: rows)
    }
}
