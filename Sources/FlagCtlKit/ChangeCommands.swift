import CommandLineKit
import FlagKit

/// `ENV [--all] [--json]`: what a listing of changes lists and how.
public struct ChangeListingOptions: Sendable, Equatable {
    /// The environment.
    public let environment: String
    /// Every status, not only those still waiting.
    public let all: Bool
    /// JSON output.
    public let json: Bool
}

/// A listing of an environment's changes (`schedules`, `requests`): they differ in the list they read, the
/// statuses that still wait, the line for an empty list and the table.
public protocol ChangeListingCommand: Command {
    /// The environment, `--all`, `--json`.
    var options: ChangeListingOptions { get }
    /// The command with `options`.
    init(options: ChangeListingOptions)
    /// The list read.
    static var listing: ServerClient.ChangeListing { get }
    /// The statuses listed without `--all`.
    static var waiting: [String] { get }
    /// The line printed when nothing is listed.
    static func nothing(in environment: String, all: Bool) -> String
    /// The table of the changes listed.
    static func table(_ changes: [ChangeSummary]) -> String
}

extension ChangeListingCommand {
    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        self.init(options: ChangeListingOptions(environment: try parsed.required(ServerCommandSupport.environmentArgument),
                                                all: parsed.isSet(ChangeRendering.allSwitch), json: parsed.isSet(ChangeRendering.jsonSwitch)))
    }

    /// Fetches (only `waiting` statuses unless `--all`) and prints as JSON, as `table`, or `nothing` when empty.
    public func run(_ context: RunContext) -> Int32 {
        let (environment, all) = (options.environment, options.all)
        return ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let changes = try ServerCommandSupport.call { () throws(ServerError) in
                try client.changes(environment, Self.listing, statuses: all ? nil : Self.waiting)
            }
            if options.json {
                context.stdout.write(ChangeRendering.json(changes))
            } else if changes.isEmpty {
                context.print(Self.nothing(in: environment, all: all))
            } else {
                context.stdout.write(Self.table(changes))
            }
            return ExitStatus.success
        }
    }
}
