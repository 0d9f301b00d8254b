import CommandLineKit
import FlagKit

/// `flagctl eval FILE --context KEY=VALUE... [FLAG]`: what an install with this context gets,
/// evaluated locally with FlagKit, the same code the server and the app run.
public struct EvalCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "eval",
        abstract: "Evaluate flags for a context: value, variant and reason.",
        discussion: """
        Values are read as JSON when they parse (42, true, "x", [1]) and as plain strings otherwise;
        the built-in attributes (installId, appVersion, osVersion, platform, locale, country, channel,
        firstInstallDate) are always strings. --first-install-date gives firstInstallDate, an RFC 3339
        date-time with an offset (2026-11-20T08:15:00Z); without it the date is unknown, as in an app that
        could not verify its AppTransaction. Prints 'FLAG = VALUE (variant V, reason R)' per flag, all flags when none is named.
        ENV and ENV@N are fetched from the server and evaluated here, with the same FlagKit code the server runs.
        Exit status: 0 evaluated, 2 the document cannot be read or fetched, is invalid, or lacks the flag.
        """,
        options: [contextOption, installDateOption, jsonSwitch],
        arguments: [document, flagArgument]
    )

    /// `--context KEY=VALUE`, repeatable.
    static let contextOption = Option<String>("context", valueName: "key=value", help: "One attribute of the evaluation context.", repeatable: true)
    /// `--first-install-date DATE`: the install's `firstInstallDate`, checked as an RFC 3339 date-time.
    static let installDateOption = Option("first-install-date", valueName: "date-time",
                                          help: "When the install was first downloaded (RFC 3339, e.g. 2026-11-20T08:15:00Z); default: unknown.") {
        text throws(UsageError) in
        if let problem = BuiltInAttribute.firstInstallDate.problem(with: .string(text)) { throw UsageError("--first-install-date \(problem)") }
        return text
    }
    /// `--json`.
    static let jsonSwitch = Switch("json", help: "Print the results as JSON.")
    /// The document to evaluate.
    static let document = Argument("file", help: "A flag document (JSON; '-' reads standard input), ENV (fetched from the server) or ENV@N.") {
        text throws(UsageError) in try DocumentOperand(text)
    }
    /// The one flag to evaluate.
    static let flagArgument = Argument("flag", .optional, help: "The flag to evaluate (default: every flag).")

    /// Where the document comes from.
    public let operand: DocumentOperand
    /// The context's attributes as given.
    public let attributes: [String: JSONValue]
    /// The one flag asked for.
    public let flag: String?
    /// JSON output.
    public let json: Bool

    /// From the parsed command line; a `--context` without `=` or an attribute given twice is a usage error.
    public init(parsed: ParsedArguments) throws(UsageError) {
        operand = try parsed.required(Self.document)
        flag = try parsed.value(Self.flagArgument)
        json = parsed.isSet(Self.jsonSwitch)
        var attributes = try Self.attributes(parsed.values(Self.contextOption))
        if let date = try parsed.value(Self.installDateOption) {
            let name = BuiltInAttribute.firstInstallDate.rawValue
            guard attributes[name] == nil else { throw UsageError("--first-install-date and --context \(name)= given together") }
            attributes[name] = .string(date)
        }
        self.attributes = attributes
    }

    /// `KEY=VALUE` pairs as attributes.
    static func attributes(_ pairs: [String]) throws(UsageError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("--context '\(pair)' is not KEY=VALUE")
            }
            let key = String(pair[..<equals])
            let text = String(pair[pair.index(after: equals)...])
            guard result[key] == nil else { throw UsageError("--context \(key) given more than once") }
            let value = attributeValue(key: key, text: text)
            if let problem = BuiltInAttribute(named: key)?.problem(with: value) { throw UsageError("--context \(key) \(problem)") }
            result[key] = value
        }
        return result
    }

    /// JSON when the text parses as JSON, else the text; built-in attributes always as text, so
    /// `appVersion=2` stays the version "2" rather than the number 2.
    static func attributeValue(key: String, text: String) -> JSONValue {
        if BuiltInAttribute(named: key) != nil { return .string(text) }
        return (try? JSONParser.parse(text))?.value ?? .string(text)
    }

    /// Evaluates and prints.
    public func run(_ context: RunContext) -> Int32 {
        let document: FlagDocument
        do {
            document = try operand.load(context.globals).document
        } catch {
            context.error(error.description)
            return ExitStatus.trouble
        }
        let evaluationContext = EvaluationContext(attributes: attributes)
        let keys: [String]
        if let flag {
            guard document.flags[flag] != nil else {
                context.error(CommandFailure.unknownFlag(source: operand.description, key: flag).description)
                return ExitStatus.trouble
            }
            keys = [flag]
        } else {
            keys = document.sortedFlagKeys
        }
        let results = keys.map { document.evaluate($0, context: evaluationContext) }
        if json {
            let values: [JSONValue] = results.map { result in
                ["key": .string(result.key), "value": result.value, "variant": .string(result.variant), "reason": .string(result.reason.rawValue)]
            }
            context.print((flag == nil ? JSONValue.object(["flags": .array(values)]) : values.first ?? .null).canonicalString)
        } else {
            for result in results {
                context.print("\(result.key) = \(result.value) (variant \(result.variant), reason \(result.reason.rawValue))")
            }
        }
        return ExitStatus.success
    }
}
