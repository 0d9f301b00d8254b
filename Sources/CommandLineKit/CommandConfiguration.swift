/// What a command is: its name, what it does, and what it accepts. swift-argument-parser's `CommandConfiguration`,
/// with the options and arguments listed here (each a typed static declaration of the command) instead of
/// discovered from property wrappers.
public struct CommandConfiguration: Sendable {
    /// A command with more options than this shows `[<options>]` in its usage line; `--help` lists them all.
    public static let usageOptionLimit = 8

    /// The command's name (`diff`).
    public let name: String
    /// One line for the tool's command list and the help's overview.
    public let abstract: String
    /// Further paragraphs for `--help`.
    public let discussion: String
    /// The command's own options (the tool adds its global ones).
    public let options: [OptionSpec]
    /// The positional arguments, in order.
    public let arguments: [ArgumentSpec]

    /// A configuration.
    public init(name: String, abstract: String, discussion: String = "", options: [any OptionDeclaration] = [],
                arguments: [any ArgumentDeclaration] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options.map(\.spec)
        self.arguments = arguments.map(\.spec)
    }

    /// What follows the command's name in its usage line: `[--json] [--impact] <a> [<b>]`, `--to <file>`.
    public var synopsis: String {
        let options = options.filter { $0.refusal == nil }
        let shown = options.count > Self.usageOptionLimit
            ? options.filter(\.isRequired).map(\.usageItem) + ["[<options>]"]
            : options.map(\.usageItem)
        return (shown + arguments.map(\.synopsis)).joined(separator: " ")
    }
}
