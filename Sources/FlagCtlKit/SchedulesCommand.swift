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
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        all = parsed.isSet(ChangeRendering.allFlag)
        json = parsed.isSet(ChangeRendering.jsonFlag)
    }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let changes = try ServerCommandSupport.call { () throws(ServerError) in
                try client.changes(environment, .schedules, statuses: all ? nil : ["scheduled", "pending", "approved"])
            }
            if json {
                context.stdout.write(ChangeRendering.json(changes))
            } else if changes.isEmpty {
                context.print("\(environment): no \(all ? "" : "waiting ")scheduled changes")
            } else {
                context.stdout.write(ChangeRendering.scheduleTable(changes))
            }
            return ExitStatus.success
        }
    }
}
