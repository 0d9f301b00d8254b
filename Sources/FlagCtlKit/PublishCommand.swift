import CommandLineKit
import FlagKit

/// `flagctl publish FILE --env ENV -m MESSAGE [--yes] [--dry-run]`: shows what would change, asks, and
/// publishes with `If-Match`, so a version published by someone else in the meantime is never overwritten.
public struct PublishCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "publish",
        abstract: "Publish a flag document to an environment, after showing the diff and asking.",
        discussion: """
        Validates FILE locally, fetches the version the server serves now with its ETag, prints the semantic
        diff from it to FILE and asks for confirmation (on a terminal; otherwise --yes is required). The
        publish carries If-Match with that ETag: if someone else published in between, the server refuses
        (412), nothing is published, and the command says which version is current now.
        --dry-run asks the server to validate and diff (PUT ...?dryRun=true) and publishes nothing.
        A document that changes a flag the environment's policy protects is not published: the server records
        a change request for another person to approve (flagctl approve ID).
        Exit status: 0 published, already current, or dry run done; 1 declined at the prompt;
        2 trouble: invalid file, server unreachable or refusing, someone else published meanwhile (412),
        or no terminal to ask and no --yes; 3 nothing published: a change request waits for approval.
        --guard FILE adds the file's guards to the version published, or to the change request (they then wait for
        it to be applied); the file is checked before anything is sent, and a dry run only checks it.
        """,
        options: [environmentOption, ServerCommandSupport.optionalMessageOption, ServerCommandSupport.yesOption, dryRunSwitch,
                  GuardAttachment.option],
        arguments: [fileArgument]
    )

    /// `--env NAME`, required (checked in `init`, with a hint).
    static let environmentOption = Option("env", valueName: "name", help: "The environment to publish to (required).",
                                          missing: "missing --env: name the environment to publish to") {
        text throws(UsageError) in try ServerCommandSupport.environment(text)
    }
    /// `--dry-run`.
    static let dryRunSwitch = Switch("dry-run", help: "Validate and diff on the server; publish nothing.")
    /// The document.
    static let fileArgument = Argument("file", help: "The flag document to publish; '-' reads standard input.")

    /// The document file.
    public let file: String
    /// The target environment.
    public let environment: String
    /// The change's message (nil only for a dry run, which records nothing).
    public let message: String?
    /// Skip the prompt.
    public let yes: Bool
    /// Publish nothing.
    public let dryRun: Bool
    /// `--guard FILE`: guards for what the publish makes.
    public let guardFile: String?

    /// From the parsed command line; `--env` and `-m` are required (a dry run needs no message).
    public init(parsed: ParsedArguments) throws(UsageError) {
        file = try parsed.required(Self.fileArgument)
        guard let environment = try parsed.value(Self.environmentOption) else { throw UsageError("missing --env: name the environment to publish to") }
        self.environment = environment
        dryRun = parsed.isSet(Self.dryRunSwitch)
        message = dryRun && parsed.origin(of: ServerCommandSupport.messageOption) == nil ? nil : try ServerCommandSupport.message(parsed)
        yes = parsed.isSet(ServerCommandSupport.yesOption)
        guardFile = try parsed.value(GuardAttachment.option)
        if guardFile == "-" && file == "-" { throw UsageError("the document and the guard file cannot both come from standard input") }
        if file == "-" && !yes && !dryRun {
            throw UsageError("reading the document from standard input leaves nothing to answer the prompt: add --yes")
        }
    }

    /// Validate, fetch, diff, confirm, publish.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let document = try DocumentOperand.file(file).load(context.globals).document
            let guards = try GuardAttachment.load(guardFile)
            let current = try ServerCommandSupport.call { () throws(ServerError) in try client.current(environment) }
            guard let base = current?.document ?? Self.emptyDocument else { throw .noVersion(environment) }
            let currentLabel = current.map { "\(environment) (version \($0.version) on \(client.serverName))" }
                ?? "\(environment) (no version yet on \(client.serverName))"
            if let current, current.contentHash == document.contentHash {
                context.print("\(environment) already serves this content (version \(current.version)): nothing to publish")
                GuardAttachment.nothingMade(guardFile, context)
                return ExitStatus.success
            }
            let diff = DocumentDiff(from: base, to: document)
            context.print("--- \(currentLabel)")
            context.print("+++ \(file)")
            DiffCommand.printLines(diff, context)
            if dryRun {
                let changed = try ServerCommandSupport.call { () throws(ServerError) in try client.dryRun(environment, document) }
                context.print("dry run: the server accepts this document\(changed ? "" : " and sees no change"); nothing was published")
                if let guardFile { context.print("\(guardFile): \(guards.count) valid guard\(guards.count == 1 ? "" : "s"); none added on a dry run") }
                return ExitStatus.success
            }
            let next = (current?.version ?? 0) + 1
            if let status = ServerCommandSupport.confirmed("Publish this to \(environment) as version \(next)?", yes: yes, context) {
                return status
            }
            let answer = try ServerCommandSupport.call { () throws(ServerError) in
                try client.publish(environment, document, basedOn: current, message: message ?? "")
            }
            guard case .written(let result) = answer else {
                let status = ServerCommandSupport.requested(answer, context)
                guard case .requested(let proposal) = answer else { return status }
                return GuardAttachment.attach(guards, from: guardFile, to: .change(proposal.change.id), environment: environment,
                                              client: client, context) ?? status
            }
            if result.changed {
                context.print("published \(environment) \(ServerCommandSupport.summary(result.version))")
                return GuardAttachment.attach(guards, from: guardFile, to: .version(result.version.version), environment: environment,
                                              client: client, context) ?? ExitStatus.success
            }
            context.print("\(environment) already serves this content (version \(result.version.version)): nothing was published")
            GuardAttachment.nothingMade(guardFile, context)
            return ExitStatus.success
        }
    }

    /// What a first version is compared with (the server does the same).
    static let emptyDocument: FlagDocument? = try? FlagDocument(validating: .object(["flags": .object([:])]))
}
