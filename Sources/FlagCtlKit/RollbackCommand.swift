import CommandLineKit
import FlagKit

/// `flagctl rollback ENV --to N -m MESSAGE`: publishes version N's content again, as a new version.
public struct RollbackCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "rollback",
        abstract: "Publish an old version's content again, as a new version.",
        discussion: """
        Fetches the current version and version N, prints the diff from the current one to N, asks (on a
        terminal; otherwise --yes is required) and asks the server to roll back, with If-Match of the current
        version, so a publish in between is never undone unseen. History keeps every version: the rollback is
        a new version that records which one it copied.
        A rollback that changes a protected flag becomes a change request for another person to approve.
        Exit status: 0 rolled back (or N's content is already current), 1 declined at the prompt, 2 trouble:
        server unreachable or refusing, no such version, someone else published meanwhile (412), no terminal
        to ask and no --yes; 3 nothing published: a change request waits for approval.
        """,
        options: [targetOption, ServerCommandSupport.messageOption, ServerCommandSupport.yesOption],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// `--to N`, required (checked in `init`, with a hint).
    static let targetOption = Option("to", valueName: "n", help: "The version whose content to publish again (required).",
                                     missing: "missing --to N: the version to go back to") {
        text throws(UsageError) in
        guard let number = Int(text), number >= 1 else { throw UsageError("--to '\(text)' must be a positive whole number") }
        return number
    }

    /// The environment.
    public let environment: String
    /// The version to go back to.
    public let target: Int
    /// The change's message.
    public let message: String
    /// Skip the prompt.
    public let yes: Bool

    /// From the parsed command line; `--to` and `-m` are required.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        guard let target = try parsed.value(Self.targetOption) else { throw UsageError("missing --to N: the version to go back to") }
        self.target = target
        message = try ServerCommandSupport.message(parsed)
        yes = parsed.isSet(ServerCommandSupport.yesOption)
    }

    /// Fetch both, diff, confirm, roll back.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            guard let current = try ServerCommandSupport.call({ () throws(ServerError) in try client.current(environment) }),
                  let now = current.document
            else { throw .noVersion(environment) }
            let old = try ServerCommandSupport.call { () throws(ServerError) in try client.version(environment, target) }
            if old.contentHash == current.contentHash {
                context.print("\(environment) version \(current.version) already has the content of version \(target): nothing to roll back")
                return ExitStatus.success
            }
            guard let then = old.document else { throw .noVersion(environment) }
            context.print("--- \(environment) (version \(current.version), current)")
            context.print("+++ \(environment)@\(target) (\(old.publishedAt), \(old.author): \(old.message))")
            DiffCommand.printLines(DocumentDiff(from: now, to: then), context)
            let question = "Publish version \(target)'s content to \(environment) as version \(current.version + 1)?"
            if let status = ServerCommandSupport.confirmed(question, yes: yes, context) { return status }
            let answer = try ServerCommandSupport.call { () throws(ServerError) in
                try client.rollback(environment, to: target, basedOn: current, message: message)
            }
            guard case .written(let result) = answer else { return ServerCommandSupport.requested(answer, context) }
            context.print(result.changed ? "rolled back \(environment) to version \(target)'s content: \(ServerCommandSupport.summary(result.version))"
                                         : "nothing was published: \(environment) version \(result.version.version) already has this content")
            return ExitStatus.success
        }
    }
}
