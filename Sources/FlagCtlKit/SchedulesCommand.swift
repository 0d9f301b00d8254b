import CommandLineKit
import FlagKit

/// `flagctl schedules ENV [--all] [--json]`: the changes waiting for a time, the next one first.
public struct SchedulesCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "schedules",
        abstract: "List an environment's scheduled changes, the next one first.",
        discussion: """
        Shows the changes still waiting for their time (scheduled, and pending ones that also wait for an
        approval); --all adds those that ran or ended (applied, conflicted, failed, cancelled, ...).
        Exit status: 0 listed, 2 the server cannot be reached or refuses.
        """,
        options: [ChangeRendering.allFlag, ChangeRendering.jsonFlag],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// The environment.
    public let environment: String
    /// Every status, not only waiting ones.
    public let all: Bool
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        (environment, all, json) = try ChangeRendering.listingOptions(parsed)
    }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        ChangeRendering.list(context, environment, .schedules, waiting: ["scheduled", "pending", "approved"], all: all, json: json,
                             empty: "\(environment): no \(all ? "" : "waiting ")scheduled changes", table: ChangeRendering.scheduleTable)
    }
}
