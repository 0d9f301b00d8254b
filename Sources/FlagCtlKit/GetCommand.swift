import CommandLineKit
import FlagKit

/// `flagctl get ENV [FLAG]`: the document the server serves, or one flag's definition.
public struct GetCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "get",
        abstract: "Print the document an environment serves (or one published version, or one flag).",
        discussion: """
        Prints the document as pretty JSON (sorted keys), so 'flagctl get production > flags/production.json'
        gives a file that publishes the same content; with FLAG, only that flag's definition.
        --json prints the server's envelope instead: environment, version, contentHash, publishedAt, author,
        message and document (with FLAG: environment, version, key and flag).
        Exit status: 0 printed, 2 the server cannot be reached or refuses, or the flag does not exist.
        """,
        options: [jsonSwitch],
        arguments: [source, flagArgument]
    )

    /// `--json`.
    static let jsonSwitch = Switch("json", help: "Print the envelope with the version's metadata.")
    /// The environment or version; a file is refused (this command reads the server).
    static let source = Argument("env", help: "The environment (production), or a published version (production@41).") {
        text throws(UsageError) in
        let operand = try DocumentOperand(text)
        guard operand.needsServer else { throw UsageError("'\(operand)' is not an environment name (lowercase letters, digits and '-')") }
        return operand
    }
    /// The one flag to print.
    static let flagArgument = Argument("flag", .optional, help: "Only this flag's definition.")

    /// The environment or version.
    public let operand: DocumentOperand
    /// The one flag asked for.
    public let flag: String?
    /// Envelope output.
    public let json: Bool

    /// From the parsed command line; a file is a usage error (this command reads the server).
    public init(parsed: ParsedArguments) throws(UsageError) {
        operand = try parsed.required(Self.source)
        flag = try parsed.value(Self.flagArgument)
        json = parsed.isSet(Self.jsonSwitch)
    }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        let loaded: LoadedDocument
        do {
            loaded = try operand.load(context.globals)
        } catch {
            context.error(error.description)
            return ExitStatus.trouble
        }
        guard let flag else {
            context.stdout.write(json ? (loaded.published?.json ?? loaded.document.jsonValue).prettyString : loaded.document.prettyJSON)
            return ExitStatus.success
        }
        guard let definition = loaded.document.flags[flag] else {
            context.error(CommandFailure.unknownFlag(source: loaded.label, key: flag).description)
            return ExitStatus.trouble
        }
        if json {
            let object: JSONValue = [
                "environment": .string(loaded.published?.environment ?? ""),
                "version": .integer(Int64(loaded.published?.version ?? 0)),
                "key": .string(flag), "flag": definition.jsonValue,
            ]
            context.stdout.write(object.prettyString)
        } else {
            context.stdout.write(definition.jsonValue.prettyString)
        }
        return ExitStatus.success
    }
}
