/// Usage lines and help texts, generated from the configurations.
extension CommandLineTool {
    /// `flagctl [--server <url>] <command> [<options>] [<arguments>]`; `[<command>]` when one runs by default.
    public var toolUsage: String {
        let command = defaultCommand == nil ? "<command>" : "[<command>]"
        return ([name] + shownGlobals.map(\.usageItem) + [command, "[<options>]", "[<arguments>]"]).joined(separator: " ")
    }

    /// The usage line of one of the tool's commands: `flagctl diff [--json] ... <a> [<b>]`, `flagserver [<options>]`
    /// for the default command.
    public func usage(of type: any ParsableCommand<Context>.Type) -> String {
        usage(of: type.configuration, path: [name] + (path(of: type) ?? []))
    }

    /// A command's `--help` (the tool's own for the default command).
    public func help(for type: any ParsableCommand<Context>.Type) -> String {
        guard let path = path(of: type) else { return toolHelp }
        return help(for: type, path: [name] + path)
    }

    /// The tool's `--help`: overview, usage, the default command's options, every command, the global options.
    public var toolHelp: String {
        var text = overview(abstract, discussion)
        if let defaultCommand {
            let configuration = defaultCommand.configuration
            text += "USAGE: \(usage(of: configuration, path: [name]))\n"
            text += "       " + Self.groupUsage([name] + shownGlobals.map(\.usageItem)) + "\n"
            text += sections(configuration)
        } else {
            text += "USAGE: \(toolUsage)\n"
        }
        text += "\nCOMMANDS:\n" + Self.table(allCommands.map { ($0.path.joined(separator: " "), $0.type.configuration.abstract) })
        text += "\nGLOBAL OPTIONS:\n" + Self.table(globalRows)
        text += "\nSee '\(name) help <command>' or '\(name) <command> --help' for a command's options.\n"
        return text
    }

    func usage(of configuration: CommandConfiguration, path: [String]) -> String {
        let synopsis = configuration.synopsis
        return path.joined(separator: " ") + (synopsis.isEmpty ? "" : " " + synopsis)
    }

    /// A command's `--help`: overview, discussion, usage, arguments, options, global options.
    func help(for type: any ParsableCommand<Context>.Type, path: [String]) -> String {
        if path == [name] { return toolHelp }
        let configuration = type.configuration
        var text = overview(configuration.abstract, configuration.discussion)
        text += "USAGE: \(usage(of: configuration, path: path))\n"
        text += sections(configuration)
        text += "\nGLOBAL OPTIONS:\n" + Self.table(globalRows)
        return text
    }

    /// A group's `--help`: its commands.
    func help(for group: CommandGroup<Context>, path: [String]) -> String {
        var text = overview(group.abstract, group.discussion)
        text += "USAGE: \(Self.groupUsage(path))\n"
        let commands = group.subcommands.flatMap(\.commands)
        text += "\nCOMMANDS:\n" + Self.table(commands.map { ($0.path.joined(separator: " "), $0.type.configuration.abstract) })
        text += "\nGLOBAL OPTIONS:\n" + Self.table(globalRows)
        text += "\nSee '\(name) help \(path.dropFirst().joined(separator: " ")) <command>' for a command's options.\n"
        return text
    }

    /// `flagserver token <command> [<options>] [<arguments>]`.
    static func groupUsage(_ path: [String]) -> String {
        (path + ["<command>", "[<options>]", "[<arguments>]"]).joined(separator: " ")
    }

    private func overview(_ abstract: String, _ discussion: String) -> String {
        "OVERVIEW: \(abstract)\n\n" + (discussion.isEmpty ? "" : discussion + "\n\n")
    }

    /// ARGUMENTS and OPTIONS, each after a blank line, when there are any.
    private func sections(_ configuration: CommandConfiguration) -> String {
        var text = ""
        if !configuration.arguments.isEmpty {
            text += "\nARGUMENTS:\n" + Self.table(configuration.arguments.map { ($0.synopsis, $0.help) })
        }
        if !configuration.options.isEmpty {
            text += "\nOPTIONS:\n" + Self.table(configuration.options.filter { $0.refusal == nil }.map { ($0.synopsis, $0.helpText) })
        }
        return text
    }

    private var globalRows: [(String, String)] {
        shownGlobals.map { ($0.synopsis, $0.helpText) } + [("-h, --help", "Show help.")]
    }

    /// The global options help and usage lines show (not the refused ones).
    private var shownGlobals: [OptionSpec] { globalOptions.filter { $0.refusal == nil } }

    /// Two columns: the left padded to the widest entry plus two spaces.
    static func table(_ rows: [(String, String)]) -> String {
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 + "\n" }.joined()
    }
}
