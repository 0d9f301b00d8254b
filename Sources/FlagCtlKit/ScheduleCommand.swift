import CommandLineKit
import FlagKit

/// `flagctl schedule ENV FLAG VALUE --at TIME -m MESSAGE` (or `--document FILE` instead of FLAG VALUE): a
/// change the server publishes at TIME, with this author and message, unless what it sets was changed since.
public struct ScheduleCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "schedule",
        abstract: "Schedule a flip (or a whole document) for a time.",
        discussion: """
        TIME is RFC 3339 with an offset: 2027-03-01T00:00:00+01:00 (or ...Z). VALUE is read like flagctl set's
        (JSON when it parses, else a string; text for a string flag). The change is made against the version
        the server serves now, and at TIME the server publishes it as a new version with your token's name and
        MESSAGE, keeping whatever else was published meanwhile. If the flag was changed since (to something
        else), the schedule is not applied but marked conflicted: a later decision is never overwritten.
        --document FILE schedules a whole document instead. A change that touches a protected flag needs a
        second person's approval first (flagctl approve ID); the output says how.
        Exit status: 0 scheduled, 2 trouble (invalid time, unknown flag, wrong type, server refusing),
        3 recorded, but waiting for approval first.
        --guard FILE adds the file's guards to the change: they wait until it is applied, then watch the version it
        published; the file is checked before anything is sent.
        """,
        options: [atOption, ServerCommandSupport.messageOption, documentOption, ChangeRendering.jsonSwitch, GuardAttachment.option],
        arguments: [ServerCommandSupport.environmentArgument, flagArgument, valueArgument]
    )

    /// `--at TIME`, required, checked here so a typo never reaches the server.
    static let atOption = Option("at", valueName: "time", help: "When: RFC 3339 with an offset, e.g. 2027-03-01T00:00:00+01:00 (required).",
                                 missing: "missing --at TIME: when to apply it") {
        text throws(UsageError) in
        do {
            _ = try RFC3339.milliseconds(parsing: text)
        } catch {
            throw UsageError("--at '\(text)' is not an RFC 3339 time with an offset (2027-03-01T00:00:00+01:00)")
        }
        return text
    }
    /// `--document FILE`.
    static let documentOption = Option<String>("document", valueName: "file", help: "Schedule this whole document instead of one flag.")
    /// The flag's key.
    static let flagArgument = Argument("flag", .optional, help: "The flag's key.")
    /// The value as typed.
    static let valueArgument = Argument("value", .optional, help: "Its value for everyone: JSON, else a string.")

    /// The environment.
    public let environment: String
    /// The flag and its value as typed; nil with `--document`.
    public let flip: (flag: String, value: String)?
    /// The document file; nil for a flip.
    public let documentFile: String?
    /// When, as typed.
    public let at: String
    /// The change's message.
    public let message: String
    /// Print the server's JSON.
    public let json: Bool
    /// `--guard FILE`: guards for the change.
    public let guardFile: String?

    /// From the parsed command line: FLAG VALUE or --document, --at and -m required.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        documentFile = try parsed.value(Self.documentOption)
        let flag = try parsed.value(Self.flagArgument)
        let value = try parsed.value(Self.valueArgument)
        switch (flag, value, documentFile) {
        case (let flag?, let value?, nil): flip = (flag, value)
        case (nil, nil, _?): flip = nil
        case (_, _, _?): throw UsageError("give either FLAG VALUE or --document FILE, not both")
        default: throw UsageError("missing FLAG VALUE (or --document FILE): what to schedule")
        }
        guard let at = try parsed.value(Self.atOption) else { throw UsageError("missing --at TIME: when to apply it") }
        self.at = at
        message = try ServerCommandSupport.message(parsed)
        json = parsed.isSet(ChangeRendering.jsonSwitch)
        guardFile = try parsed.value(GuardAttachment.option)
        if guardFile == "-" && documentFile == "-" { throw UsageError("the document and the guard file cannot both come from standard input") }
    }

    /// Fetch (for the flag's type and the version the change is based on), schedule, print.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let guards = try GuardAttachment.load(guardFile)
            let current = try ServerCommandSupport.call { () throws(ServerError) in try client.current(environment) }
            var flags: [String: JSONValue]?
            var document: FlagDocument?
            if let flip {
                guard let current, let served = current.document else { throw .noVersion(environment) }
                flags = [flip.flag: try SetCommand.checkedValue(flip.value, flag: flip.flag, in: served, of: current).1]
            } else if let documentFile {
                document = try DocumentOperand.file(documentFile).load(context.globals).document
            }
            let proposal = try ServerCommandSupport.call { () throws(ServerError) in
                try client.schedule(environment, at: at, message: message, flags: flags, document: document, basedOn: current)
            }
            if json {
                context.stdout.write(proposal.json.prettyString)
            } else if proposal.needsApproval {
                ChangeRendering.printRequest(proposal, context)
            } else {
                ChangeRendering.printSchedule(proposal, context)
            }
            let status = proposal.needsApproval ? ExitStatus.needsApproval : ExitStatus.success
            // With --json the guards' lines would break the JSON on standard output: they are added all the same, quietly.
            let output = json ? RunContext(globals: context.globals, stdout: BufferOutput(), stderr: context.stderr,
                                           stdoutIsTerminal: false, environment: context.environment) : context
            return GuardAttachment.attach(guards, from: guardFile, to: .change(proposal.change.id), environment: environment,
                                          client: client, output) ?? status
        }
    }
}
