/// A command-line tool: its commands (and groups of them), the options every command accepts, and optionally a
/// command that runs when the command line names none (`flagserver --port 0` serves).
///
/// ``parse(_:environment:)`` turns a command line into a command to run, a help text, or a usage error; tests call it
/// with arrays. Options may appear anywhere, as `--name value` or `--name=value`; `--` ends them; the global options
/// may also stand before the command's name.
public struct CommandLineTool<Context> {
    /// The program's name (`flagctl`), which starts usage lines and error messages.
    public let name: String
    /// One line for `--help`.
    public let abstract: String
    /// Further paragraphs for `--help`.
    public let discussion: String
    /// Options every command accepts, before or after its name (`--server`).
    public let globalOptions: [OptionSpec]
    /// The commands and groups, in the order `--help` lists them.
    public let subcommands: [Subcommand<Context>]
    /// What runs when the command line names no command; its options are then the tool's own.
    public let defaultCommand: (any ParsableCommand<Context>.Type)?

    /// A tool.
    public init(name: String, abstract: String, discussion: String = "", globalOptions: [any OptionDeclaration] = [],
                subcommands: [Subcommand<Context>], defaultCommand: (any ParsableCommand<Context>.Type)? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.globalOptions = globalOptions.map(\.spec)
        self.subcommands = subcommands
        self.defaultCommand = defaultCommand
    }

    /// Parses a command line (without the program name); `environment` gives the options' variables.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) -> Invocation<Context> {
        var tokens = arguments[...]
        var globals: [String] = []
        var path = [name]
        var level = subcommands
        var group: CommandGroup<Context>?
        while true {
            // Global options may come before the command's name; anything else there is the tool's own.
            while let first = tokens.first, first.hasPrefix("-") {
                if first == "--help" || first == "-h" { return .help(group.map { help(for: $0, path: path) } ?? toolHelp) }
                guard let spec = globalOptions.first(where: { $0.isSpelled(by: first) }) else {
                    if group == nil, defaultCommand != nil { break }
                    return .usageError(levelError("unknown option '\(first.prefix { $0 != "=" })'", group, path))
                }
                if let refusal = spec.refusal { return .usageError(levelError(refusal, group, path)) }
                globals.append(tokens.removeFirst())
                if spec.valueName != nil, !first.contains("=") {
                    guard let value = tokens.popFirst() else {
                        return .usageError(levelError("option '--\(spec.name)' needs a value <\(spec.valueName ?? "value")>", group, path))
                    }
                    globals.append(value)
                }
            }
            let word = tokens.first
            if group == nil, word == "help" { return helpTopic(Array(tokens.dropFirst())) }
            guard let entry = level.first(where: { $0.name == word }) else {
                if group == nil, let defaultCommand { return invoke(defaultCommand, path: path, tokens: globals + tokens, environment) }
                let known = level.map(\.name).joined(separator: ", ")
                let what = group.map { "\($0.name) command" } ?? "command"
                let message = word.map { "unknown \(what) '\($0)'" } ?? "missing \(what)"
                return .usageError(levelError(group == nil ? message : "\(message) (\(known))", group, path))
            }
            tokens.removeFirst()
            path.append(entry.name)
            switch entry {
            case .command(let type):
                return invoke(type, path: path, tokens: globals + tokens, environment)
            case .group(let next):
                group = next
                level = next.subcommands
            }
        }
    }

    /// Parses the command's tokens and builds it; help when they ask for it.
    private func invoke(_ type: any ParsableCommand<Context>.Type, path: [String], tokens: ArraySlice<String>,
                        _ environment: [String: String]) -> Invocation<Context> {
        let configuration = type.configuration
        let context = UsageError("", usage: usage(of: configuration, path: path), tool: name, helpHint: (path + ["--help"]).joined(separator: " "))
        if ArgumentParser.asksForHelp(tokens) { return .help(help(for: type, path: path)) }
        do throws(UsageError) {
            var parsed = try ArgumentParser.parse(Array(tokens), options: configuration.options + globalOptions,
                                                  arguments: configuration.arguments, environment: environment)
            parsed.context = context
            return .run(try type.init(parsed: parsed), parsed)
        } catch {
            return .usageError(error.completed(by: context))
        }
    }

    /// `help`, `help diff`, `help token create`.
    private func helpTopic(_ words: [String]) -> Invocation<Context> {
        var level = subcommands
        var path = [name]
        var group: CommandGroup<Context>?
        for word in words {
            guard let entry = level.first(where: { $0.name == word }) else {
                return .usageError(levelError("unknown command '\(word)'", group, path))
            }
            path.append(word)
            switch entry {
            case .command(let type): return .help(help(for: type, path: path))
            case .group(let next):
                group = next
                level = next.subcommands
            }
        }
        return .help(group.map { help(for: $0, path: path) } ?? toolHelp)
    }

    /// An error about the tool's (or a group's) own words, with its usage line.
    private func levelError(_ message: String, _ group: CommandGroup<Context>?, _ path: [String]) -> UsageError {
        UsageError(message, usage: group == nil ? toolUsage : Self.groupUsage(path), tool: name,
                   helpHint: (path + ["--help"]).joined(separator: " "))
    }

    /// Every command with the words that choose it (`["token", "create"]`), in help order.
    var allCommands: [(path: [String], type: any ParsableCommand<Context>.Type)] {
        subcommands.flatMap(\.commands)
    }

    /// The words that choose `type` after the tool's name; nil for the default command and for one the tool does not have.
    func path(of type: any ParsableCommand<Context>.Type) -> [String]? {
        allCommands.first { ObjectIdentifier($0.type) == ObjectIdentifier(type) }?.path
    }
}

/// What a command line asks for.
public enum Invocation<Context> {
    /// Run this command; the parsed arguments also hold the global options.
    case run(any ParsableCommand<Context>, ParsedArguments)
    /// Print this help text to standard output and exit 0.
    case help(String)
    /// Print ``UsageError/report`` to standard error and exit ``UsageError/exitStatus`` (64).
    case usageError(UsageError)
}
