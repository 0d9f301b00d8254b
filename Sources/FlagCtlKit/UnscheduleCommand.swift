import CommandLineKit
import FlagKit

/// `flagctl unschedule ID [-m MESSAGE]`: cancels a scheduled change (or a pending change request).
public struct UnscheduleCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "unschedule",
        abstract: "Cancel a scheduled change or a pending change request.",
        discussion: """
        Only a change that has not run yet (scheduled or pending) can be cancelled; the record stays, with who
        cancelled it and why (-m).
        Exit status: 0 cancelled, 2 trouble: no such change, it already ran or ended (409 not_cancellable),
        server unreachable or refusing.
        """,
        options: [ChangeRendering.noteOption],
        arguments: [ChangeRendering.idArgument]
    )

    /// The change.
    public let id: Int64
    /// Why.
    public let message: String?

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        id = try parsed.required(ChangeRendering.idArgument)
        message = try parsed.value(ChangeRendering.noteOption)
    }

    /// Cancels and prints what it was.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let change = try ServerCommandSupport.call { () throws(ServerError) in try client.cancel(id, message: message) }
            context.print("cancelled \(change.environment) change \(change.id) (\(change.itemList)"
                + (change.applyAt.map { ", was due \($0)" } ?? "") + "): nothing of it will be published")
            return ExitStatus.success
        }
    }
}
