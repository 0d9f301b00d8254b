/// The options and arguments one command line gave, read back through their typed declarations.
///
/// Values are converted when they are read, so a command decides the order of its checks (`--sample` needs
/// `--impact` before `--sample abc` is a bad number). A conversion that fails throws the declaration's own
/// message, completed with the command's usage line.
public struct ParsedArguments: Sendable {
    /// Where an option's value came from.
    public enum Origin: Sendable, Equatable {
        /// The command line.
        case commandLine
        /// This environment variable, because the command line did not give the option.
        case environment(String)
    }

    /// Values of options that take one, by long name, in the order given.
    var optionValues: [String: [String]] = [:]
    /// Switches given, by long name.
    var switches: Set<String> = []
    /// Values of positional arguments, by argument name.
    var positionals: [String: [String]] = [:]
    /// Where each given option (switch or value) came from, by long name.
    var origins: [String: Origin] = [:]
    /// Tool, usage line and help hint of the command these arguments are for, which errors carry.
    var context = UsageError("")

    /// Nothing given.
    public init() {}

    /// Whether the switch was given (or set by its environment variable).
    public func isSet(_ option: Switch) -> Bool { switches.contains(option.spec.name) }

    /// Where the option's value came from; nil when it was not given at all.
    public func origin(of option: some OptionDeclaration) -> Origin? { origins[option.spec.name] }

    /// The value of the option, converted; the last one for a repeatable option; nil when not given.
    public func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard let text = optionValues[option.spec.name]?.last else { return nil }
        return try convert(text, option.transform)
    }

    /// Every value of a repeatable option, converted, in the order given.
    public func values<Value>(_ option: Option<Value>) throws(UsageError) -> [Value] {
        try convertAll(optionValues[option.spec.name] ?? [], option.transform)
    }

    /// The value of an option the command cannot do without.
    public func required<Value>(_ option: Option<Value>) throws(UsageError) -> Value {
        guard let value = try value(option) else { throw usageError(Self.missing(option.spec)) }
        return value
    }

    /// The value of an optional argument (`[<flag>]`), converted; nil when not given.
    public func value<Value>(_ argument: Argument<Value>) throws(UsageError) -> Value? {
        guard let text = positionals[argument.spec.name]?.first else { return nil }
        return try convert(text, argument.transform)
    }

    /// The values of an argument taking several (`<file>...`), converted.
    public func values<Value>(_ argument: Argument<Value>) throws(UsageError) -> [Value] {
        try convertAll(positionals[argument.spec.name] ?? [], argument.transform)
    }

    /// The value of an argument that must be there (`<file>`); the parser has already refused a command line without it.
    public func required<Value>(_ argument: Argument<Value>) throws(UsageError) -> Value {
        guard let value = try value(argument) else { throw usageError("missing argument \(argument.spec.synopsis)") }
        return value
    }

    /// An error about these arguments, carrying the command's usage line (for checks outside a command's `init`).
    public func usageError(_ message: String) -> UsageError {
        UsageError(message).completed(by: context)
    }

    /// `missing option '--to <file>'`.
    static func missing(_ option: OptionSpec) -> String {
        option.missingMessage ?? "missing option '--\(option.name)\(option.valueName.map { " <\($0)>" } ?? "")'"
    }

    private func convert<Value>(_ text: String, _ transform: (String) throws(UsageError) -> Value) throws(UsageError) -> Value {
        do {
            return try transform(text)
        } catch {
            throw error.completed(by: context)
        }
    }

    private func convertAll<Value>(_ texts: [String], _ transform: (String) throws(UsageError) -> Value) throws(UsageError) -> [Value] {
        var result: [Value] = []
        for text in texts { result.append(try convert(text, transform)) }
        return result
    }
}
