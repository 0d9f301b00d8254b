/// A named option of a command: `--sample <n>` (takes a value) or `--json` (a flag without one).
public struct OptionSpec: Sendable, Equatable {
    /// The long name without its dashes (`sample` for `--sample`).
    public let name: String
    /// The placeholder of the value in usage lines (`n`); nil for a flag that takes no value.
    public let valueName: String?
    /// One line saying what the option does.
    public let help: String
    /// Whether the option may be given more than once (`--context a=1 --context b=2`).
    public let repeatable: Bool
    /// A one-letter alias (`m` for `-m`), for the options everybody types (`-m MESSAGE`, as in git).
    public var short: Character?

    /// An option that takes a value.
    public static func value(_ name: String, _ valueName: String, help: String, repeatable: Bool = false,
                             short: Character? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable, short: short)
    }

    /// An option without a value.
    public static func flag(_ name: String, help: String, short: Character? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, repeatable: false, short: short)
    }

    /// `--sample <n>`, `--context <key=value> ...`, `--json`, `-m, --message <text>`.
    var synopsis: String {
        var text = (short.map { "-\($0), " } ?? "") + "--\(name)"
        if let valueName { text += " <\(valueName)>" }
        if repeatable { text += " ..." }
        return text
    }
}

/// A positional argument of a command.
public struct ArgumentSpec: Sendable, Equatable {
    /// How many values the argument takes.
    public enum Arity: Sendable, Equatable {
        /// Exactly one.
        case one
        /// Zero or one.
        case optional
        /// One or more.
        case oneOrMore
    }

    /// The placeholder in usage lines (`file`).
    public let name: String
    /// How many values it takes.
    public let arity: Arity
    /// One line saying what the argument is.
    public let help: String

    /// An argument.
    public init(_ name: String, _ arity: Arity = .one, help: String) {
        self.name = name
        self.arity = arity
        self.help = help
    }

    /// `<file>`, `[<flag>]`, `<file>...`.
    var synopsis: String {
        switch arity {
        case .one: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .oneOrMore: "<\(name)>..."
        }
    }
}

/// What a command is: its name, what it does, and what it accepts. The swift-argument-parser
/// idea of a `CommandConfiguration`, with the options declared here instead of by property wrappers.
public struct CommandConfiguration: Sendable {
    /// The subcommand's name (`diff`).
    public let name: String
    /// One line for the tool's command list and the help's overview.
    public let abstract: String
    /// Further paragraphs for `--help`.
    public let discussion: String
    /// The command's own options (the global ones are added by the tool).
    public let options: [OptionSpec]
    /// The positional arguments, in order.
    public let arguments: [ArgumentSpec]

    /// A configuration.
    public init(name: String, abstract: String, discussion: String = "", options: [OptionSpec] = [], arguments: [ArgumentSpec] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
    }

    /// `flagctl diff [--json] [--impact] <a> <b>`.
    public var usage: String {
        let options = options.map { "[\($0.synopsis)]" }
        let arguments = arguments.map(\.synopsis)
        return (["flagctl", name] + options + arguments).joined(separator: " ")
    }
}

/// The options and arguments one invocation gave, by name.
public struct ParsedArguments: Sendable, Equatable {
    /// Values of options that take one, in the order given.
    public var optionValues: [String: [String]] = [:]
    /// Flags given.
    public var flags: Set<String> = []
    /// Values of positional arguments, by argument name.
    public var positionals: [String: [String]] = [:]

    /// An empty result.
    public init() {}

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name`, when given (the last one for a repeatable option).
    public func value(_ name: String) -> String? { optionValues[name]?.last }

    /// Every value of a repeatable option.
    public func values(_ name: String) -> [String] { optionValues[name] ?? [] }

    /// The value of a single positional argument.
    public func argument(_ name: String) -> String? { positionals[name]?.first }

    /// The values of a positional argument taking several.
    public func arguments(_ name: String) -> [String] { positionals[name] ?? [] }
}

/// A command line the tool cannot run: the message says what is wrong; the tool adds the usage line.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option '--bogus'`.
    public let message: String
    /// The usage line of the command (or of the tool) it concerns; empty until the tool fills it.
    public var usage: String

    /// An error; `usage` is filled in by the parser when left empty.
    public init(_ message: String, usage: String = "") {
        self.message = message
        self.usage = usage
    }

    /// `error: ...` and `Usage: ...` on two lines.
    public var description: String { "flagctl: error: \(message)\nUsage: \(usage)" }
}
