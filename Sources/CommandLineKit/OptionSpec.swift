/// What the parser and the help text know about a named option, whatever the type of its value: `--sample <n>`
/// (takes a value) or `--json` (a switch, without one).
public struct OptionSpec: Sendable, Equatable {
    /// The long name without its dashes (`sample` for `--sample`).
    public let name: String
    /// A one-letter alias (`m` for `-m`), for the options everybody types (`-m MESSAGE`, as in git).
    public let short: Character?
    /// The placeholder of the value in usage lines (`n`); nil for a switch, which takes no value.
    public let valueName: String?
    /// One line saying what the option does.
    public let help: String
    /// Whether the option may be given more than once (`--context a=1 --context b=2`).
    public let repeatable: Bool
    /// Whether the command line must give it (or its environment variable); shown without brackets in usage lines.
    public let isRequired: Bool
    /// The environment variable read when the command line does not give the option (`FLAGCTL_SERVER`).
    public let environment: String?
    /// For an option that is recognized only to be refused (`--token`): why, and what to do instead. Never shown in help.
    public let refusal: String?
    /// What a usage error says when a required option is missing (nil: `missing option '--to <file>'`).
    public let missingMessage: String?

    /// A description; the typed declarations (`Switch`, `Option`) build these.
    public init(name: String, short: Character? = nil, valueName: String?, help: String, repeatable: Bool = false,
                isRequired: Bool = false, environment: String? = nil, refusal: String? = nil, missingMessage: String? = nil) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
        self.isRequired = isRequired
        self.environment = environment
        self.refusal = refusal
        self.missingMessage = missingMessage
    }

    /// `--sample <n>`, `--context <key=value> ...`, `--json`, `-m, --message <text>`.
    public var synopsis: String {
        var text = (short.map { "-\($0), " } ?? "") + "--\(name)"
        if let valueName { text += " <\(valueName)>" }
        if repeatable { text += " ..." }
        return text
    }

    /// The option in a usage line: brackets unless it is required.
    var usageItem: String { isRequired ? synopsis : "[\(synopsis)]" }

    /// The help row's text, naming the environment variable (a switch's is set by `1`, `true` or `yes`).
    var helpText: String {
        guard let environment else { return help }
        return help + " (env: \(environment)\(valueName == nil ? "=1" : ""))"
    }

    /// Whether `token` spells this option: `--name`, `--name=...`, or `-m` for its short alias.
    func isSpelled(by token: String) -> Bool {
        if token.hasPrefix("--") { return token.dropFirst(2).prefix { $0 != "=" } == name }
        return token.count == 2 && token.hasPrefix("-") && token.last == short
    }
}

/// A typed option declaration (`Switch`, `Option`), as a command lists it in its configuration.
public protocol OptionDeclaration: Sendable {
    /// What the parser and the help text need.
    var spec: OptionSpec { get }
}

/// An option that is recognized anywhere only to be refused with a reason (`--token`: a token on the command line lands
/// in shell history). Hidden from usage lines and help.
public struct RefusedOption: OptionDeclaration {
    /// What the parser needs.
    public let spec: OptionSpec

    /// `--name` (with or without a value) is a usage error saying `reason`.
    public init(_ name: String, reason: String) {
        spec = OptionSpec(name: name, valueName: nil, help: "", refusal: reason)
    }
}
