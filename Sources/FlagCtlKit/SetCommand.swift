import CommandLineKit
import FlagKit

/// `flagctl set ENV FLAG VALUE -m MESSAGE`: a flip. The flag gets VALUE for everyone (its rules are dropped;
/// type, description, prerequisites and salt stay), through `PUT .../flags/{key}`.
public struct SetCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "set",
        abstract: "Flip one flag: give it one value for everyone.",
        discussion: """
        VALUE is read as JSON when it parses (true, 42, "x", {"a": 1}) and as a plain string otherwise; for a
        string flag, text that is not a JSON string is taken as it is (set production introOfferMessage true
        sets the text "true"). The flag must exist: a new flag comes with a published document. Its rules are
        removed (the value is for everyone), which the output says. The write carries If-Match of the version
        read first, so a concurrent change is never silently replaced.
        A flag the environment's policy protects is not flipped at once: the server records a change request
        that another person approves (flagctl approve ID); the output says how, and the exit status is 3.
        Exit status: 0 set (or already so), 2 trouble: unknown flag, wrong type, server unreachable or
        refusing, someone else published meanwhile (412); 3 nothing published: a change request waits for
        approval.
        --guard FILE adds the file's guards to the version published, or to the change request (they then wait for
        it to be applied); the file is checked before anything is sent.
        """,
        options: [ServerCommandSupport.messageOption, GuardAttachment.option],
        arguments: [ServerCommandSupport.environmentArgument, flagArgument, valueArgument]
    )

    /// The flag's key.
    static let flagArgument = Argument("flag", help: "The flag's key.")
    /// The value as typed.
    static let valueArgument = Argument("value", help: "The new value: JSON, else a string.")

    /// The environment.
    public let environment: String
    /// The flag's key.
    public let flag: String
    /// The value as typed.
    public let valueText: String
    /// The change's message.
    public let message: String
    /// `--guard FILE`: guards for what the flip makes.
    public let guardFile: String?

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        flag = try parsed.required(Self.flagArgument)
        valueText = try parsed.required(Self.valueArgument)
        message = try ServerCommandSupport.message(parsed)
        guardFile = try parsed.value(GuardAttachment.option)
    }

    /// The value for a flag of `type`: a JSON value, but text for a string flag unless it is a JSON string.
    static func value(_ text: String, for type: FlagType) -> JSONValue {
        let parsed = (try? JSONParser.parse(text))?.value
        if type == .string {
            if case .string? = parsed { return parsed ?? .string(text) }
            return .string(text)
        }
        return parsed ?? .string(text)
    }

    /// The flag `key` of `document` (the served `version`) and `text` read as its new value: `unknownFlag` when
    /// there is no such flag (a new flag comes with a published document, never from a typo), `wrongType` when
    /// the value is not of its type. What `set` and `schedule` check before anything is sent.
    static func checkedValue(_ text: String, flag key: String, in document: FlagDocument,
                             of version: PublishedVersion) throws(CommandFailure) -> (Flag, JSONValue) {
        guard let existing = document.flags[key] else {
            throw .unknownFlag(source: "\(version.environment) (version \(version.version)); publish a document to add a flag", key: key)
        }
        let value = value(text, for: existing.type)
        guard existing.type.accepts(value) else {
            throw .wrongType(key: key, type: existing.type, text: text, got: value.typeName)
        }
        return (existing, value)
    }

    /// Fetch, check, flip.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let guards = try GuardAttachment.load(guardFile)
            guard let current = try ServerCommandSupport.call({ () throws(ServerError) in try client.current(environment) }),
                  let document = current.document
            else { throw .noVersion(environment) }
            let (existing, value) = try Self.checkedValue(valueText, flag: flag, in: document, of: current)
            if existing.rules.isEmpty, existing.defaultValue == value {
                context.print("\(environment): \(flag) is already \(value) for everyone (version \(current.version)): nothing to change")
                GuardAttachment.nothingMade(guardFile, context)
                return ExitStatus.success
            }
            let answer = try ServerCommandSupport.call { () throws(ServerError) in
                try client.setFlag(environment, key: flag, value: value, basedOn: current, message: message)
            }
            let rules = existing.rules.count
            let dropped = rules == 0 ? "" : " (its \(rules) rule\(rules == 1 ? " would be" : "s would be") removed)"
            guard case .written(let result) = answer else {
                context.print("\(environment): \(flag) \(existing.defaultValue) -> \(value) for everyone\(dropped), once approved")
                let status = ServerCommandSupport.requested(answer, context)
                guard case .requested(let proposal) = answer else { return status }
                return GuardAttachment.attach(guards, from: guardFile, to: .change(proposal.change.id), environment: environment,
                                              client: client, context) ?? status
            }
            let removed = rules == 0 ? "" : " (its \(rules) rule\(rules == 1 ? " was" : "s were") removed)"
            context.print("\(environment): \(flag) \(existing.defaultValue) -> \(value) for everyone\(removed)")
            guard result.changed else {
                context.print("nothing was published: \(environment) version \(result.version.version) already has this")
                GuardAttachment.nothingMade(guardFile, context)
                return ExitStatus.success
            }
            context.print("published \(environment) \(ServerCommandSupport.summary(result.version))")
            return GuardAttachment.attach(guards, from: guardFile, to: .version(result.version.version), environment: environment,
                                          client: client, context) ?? ExitStatus.success
        }
    }
}
