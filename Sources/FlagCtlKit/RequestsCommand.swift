import CommandLineKit
import FlagKit

/// `flagctl requests ENV [--all] [--json]`: change requests waiting for a second person, newest first.
public struct RequestsCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "requests",
        abstract: "List an environment's change requests waiting for approval, newest first.",
        discussion: """
        A change that touches a protected flag waits for another person's approval (flagctl approve ID) or
        rejection (flagctl reject ID -m MESSAGE). --all also lists decided ones (approved, applied, rejected,
        expired, stale, cancelled).
        Exit status: 0 listed, 2 the server cannot be reached or refuses.
        """,
        options: [ChangeRendering.allFlag, ChangeRendering.jsonFlag],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// The environment.
    public let environment: String
    /// Every status, not only pending.
    public let all: Bool
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        (environment, all, json) = try ChangeRendering.listingOptions(parsed)
    }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        ChangeRendering.list(context, environment, .requests, waiting: ["pending"], all: all, json: json,
                             empty: "\(environment): no \(all ? "" : "pending ")change requests", table: ChangeRendering.requestTable)
    }
}
