import CommandLineKit
import FlagKit

/// `flagctl approve ID [-m MESSAGE]`: the second person's approval of a change request.
public struct ApproveCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "approve",
        abstract: "Approve another person's change request: it is published (or waits for its time).",
        discussion: """
        Needs a writer token other than the one that proposed the change (approving your own is refused).
        Without a time the change is published at once and the new version is printed; with one it is
        scheduled. A request that expired, or whose flags someone changed since (stale), is refused: it must be
        proposed again against the current version.
        Exit status: 0 published or scheduled, 2 trouble: refused (self_approval, not_pending, request_expired,
        request_stale, change_conflicted), server unreachable.
        """,
        options: [ChangeRendering.noteOption],
        arguments: [ChangeRendering.idArgument]
    )

    /// The change.
    public let id: Int64
    /// The note.
    public let message: String?

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        id = try parsed.required(ChangeRendering.idArgument)
        message = try parsed.value(ChangeRendering.noteOption)
    }

    /// Approves and prints what became of the change.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let approval = try ServerCommandSupport.call { () throws(ServerError) in try client.approve(id, message: message) }
            let change = approval.change
            if let version = approval.version {
                context.print("approved \(change.environment) change \(change.id): published \(change.environment) "
                    + ServerCommandSupport.summary(version))
            } else {
                context.print("approved \(change.environment) change \(change.id): \(ChangeRendering.state(change))")
            }
            return ExitStatus.success
        }
    }
}
