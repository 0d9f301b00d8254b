import CommandLineKit

/// `ID [-m TEXT]`: the change a decision is about and the note recorded with it.
public struct ChangeDecision: Sendable, Equatable {
    /// The change.
    public let id: Int64
    /// The note (`approve`'s remark, `unschedule`'s reason).
    public let message: String?
}

extension ChangeDecision {
    /// From the parsed command line: `ChangeRendering.idArgument` and `noteOption`.
    init(parsed: ParsedArguments) throws(UsageError) {
        self.init(id: try parsed.required(ChangeRendering.idArgument), message: try parsed.value(ChangeRendering.noteOption))
    }
}

/// A command on one change with an optional note (`approve`, `unschedule`).
public protocol ChangeDecisionCommand: Command {
    /// Which change, and the note.
    var decision: ChangeDecision { get }
    /// The command for `decision`.
    init(decision: ChangeDecision)
}

extension ChangeDecisionCommand {
    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        self.init(decision: try ChangeDecision(parsed: parsed))
    }
}

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
                                                all: parsed.isSet(ChangeRendering.allFlag), json: parsed.isSet(ChangeRendering.jsonFlag)))
    }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        let (environment, all) = (options.environment, options.all)
        return ChangeRendering.list(context, environment, Self.listing, waiting: Self.waiting, all: all, json: options.json,
                                    empty: Self.nothing(in: environment, all: all), table: Self.table)
    }
}
