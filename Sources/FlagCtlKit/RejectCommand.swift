import CommandLineKit
import FlagKit

/// `flagctl reject ID -m MESSAGE`: refuses a change request, saying why.
public struct RejectCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "reject",
        abstract: "Reject a change request, with the reason.",
        discussion: """
        The request is closed and nothing of it is published; its author sees who rejected it and why.
        Exit status: 0 rejected, 2 trouble: not pending any more (409 not_pending), server unreachable or refusing.
        """,
        options: [ServerCommandSupport.messageOption],
        arguments: [ChangeRendering.idArgument]
    )

    /// The change.
    public let id: Int64
    /// Why.
    public let message: String

    /// From the parsed command line; `-m` is required.
    public init(parsed: ParsedArguments) throws(UsageError) {
        id = try parsed.required(ChangeRendering.idArgument)
        message = try ServerCommandSupport.message(parsed)
    }

    /// Rejects and prints.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let change = try ServerCommandSupport.call { () throws(ServerError) in try client.reject(id, message: message) }
            context.print("rejected \(change.environment) change \(change.id) by \(change.author) (\(change.itemList)): nothing was published")
            return ExitStatus.success
        }
    }
}
