/// A tool's command, or a group of commands under one word (`flagserver token create|list|revoke`).
public enum Subcommand<Context> {
    /// A command that runs.
    case command(any ParsableCommand<Context>.Type)
    /// A word that only chooses among further commands.
    case group(CommandGroup<Context>)

    /// The word that chooses it.
    public var name: String {
        switch self {
        case .command(let type): type.configuration.name
        case .group(let group): group.name
        }
    }

    /// One line for the command list.
    public var abstract: String {
        switch self {
        case .command(let type): type.configuration.abstract
        case .group(let group): group.abstract
        }
    }

    /// Every command below (or at) this entry, each with the words that lead to it from here (`["token", "create"]`).
    var commands: [(path: [String], type: any ParsableCommand<Context>.Type)] {
        switch self {
        case .command(let type):
            [([type.configuration.name], type)]
        case .group(let group):
            group.subcommands.flatMap { entry in entry.commands.map { ([group.name] + $0.path, $0.type) } }
        }
    }
}

/// A word that chooses among further commands, with a help text of its own (`flagserver token --help`).
public struct CommandGroup<Context> {
    /// The word (`token`).
    public let name: String
    /// One line for the command list and the help's overview.
    public let abstract: String
    /// Further paragraphs for `--help`.
    public let discussion: String
    /// The commands (or groups) it chooses among, in the order help lists them.
    public let subcommands: [Subcommand<Context>]

    /// A group.
    public init(name: String, abstract: String, discussion: String = "", subcommands: [Subcommand<Context>]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
    }
}
