/// The `flagctl` tool: its commands, the top-level parse and the entry point `main.swift` calls.
public enum FlagCtl {
    /// The registered commands, in the order `--help` lists them.
    public static var commands: [any Command.Type] {
        [ValidateCommand.self, LintCommand.self, StoreKitCommand.self, DiffCommand.self, EvalCommand.self, GetCommand.self, HistoryCommand.self,
         PublishCommand.self, SetCommand.self, RollbackCommand.self]
    }

    /// `flagctl [--server <url>] <command> ...`.
    public static let usage = "flagctl [--server <url>] <command> [<options>] [<arguments>]"

    /// What a command line asks for.
    public enum Invocation {
        /// Run this command with these global options.
        case run(any Command, GlobalOptions)
        /// Print this help text to standard output and exit 0.
        case help(String)
        /// Print the error and usage line to standard error and exit 64.
        case usageError(UsageError)
    }

    /// Parses a command line (without the program name).
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) -> Invocation {
        var tokens = arguments[...]
        var leadingGlobals: [String] = []
        // Global options may come before the subcommand; everything else there is the tool's own.
        while let first = tokens.first, first.hasPrefix("-") {
            if first == "--help" || first == "-h" { return .help(toolHelp) }
            if first.hasPrefix("--token") { return .usageError(UsageError(tokenMessage, usage: usage)) }
            guard let spec = GlobalOptions.specs.first(where: { first == "--\($0.name)" || first.hasPrefix("--\($0.name)=") }) else {
                return .usageError(UsageError("unknown option '\(first)'", usage: usage))
            }
            leadingGlobals.append(tokens.removeFirst())
            if !first.contains("="), spec.valueName != nil {
                guard let value = tokens.first else {
                    return .usageError(UsageError("option '--\(spec.name)' needs a value <\(spec.valueName ?? "value")>", usage: usage))
                }
                leadingGlobals.append(value)
                tokens.removeFirst()
            }
        }
        guard let name = tokens.popFirst() else { return .usageError(UsageError("missing command", usage: usage)) }
        if name == "help" {
            guard let topic = tokens.first else { return .help(toolHelp) }
            guard let command = command(named: topic) else {
                return .usageError(UsageError("unknown command '\(topic)'", usage: usage))
            }
            return .help(help(for: command.configuration))
        }
        guard let command = command(named: name) else {
            return .usageError(UsageError("unknown command '\(name)'", usage: usage))
        }
        let configuration = command.configuration
        let rest = Array(tokens)
        if ArgumentParser.asksForHelp(rest) { return .help(help(for: configuration)) }
        if rest.contains(where: { $0.hasPrefix("--token") }) {
            return .usageError(UsageError(tokenMessage, usage: configuration.usage))
        }
        do throws(UsageError) {
            let parsed = try ArgumentParser.parse(leadingGlobals + rest, options: configuration.options + GlobalOptions.specs,
                                                  arguments: configuration.arguments)
            let globals = try GlobalOptions.resolve(parsed, environment: environment)
            return .run(try command.init(parsed: parsed), globals)
        } catch {
            var error = error
            if error.usage.isEmpty { error.usage = configuration.usage }
            return .usageError(error)
        }
    }

    private static let tokenMessage = "there is no token option: set FLAGCTL_TOKEN instead (a token on the command line lands in shell history)"

    /// `flagctl diff --help` for a command's usage line, `flagctl --help` for the tool's.
    static func helpHint(forUsage usage: String) -> String {
        let words = usage.split(separator: " ")
        if words.count > 1, command(named: String(words[1])) != nil { return "flagctl \(words[1]) --help" }
        return "flagctl --help"
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.configuration.name == name }
    }

    /// Runs a command line to completion and returns the exit status.
    public static func main(arguments: [String], environment: [String: String], stdout: TextOutput, stderr: TextOutput,
                            stdoutIsTerminal: Bool, input: LineInput = NoInput()) -> Int32 {
        switch parse(arguments, environment: environment) {
        case .help(let text):
            stdout.write(text)
            return ExitStatus.success
        case .usageError(let error):
            stderr.write("\(error)\nSee '\(helpHint(forUsage: error.usage))'.\n")
            return ExitStatus.usage
        case .run(let command, let globals):
            let context = RunContext(globals: globals, stdout: stdout, stderr: stderr, stdoutIsTerminal: stdoutIsTerminal,
                                     environment: environment, input: input)
            return command.run(context)
        }
    }

    /// The tool's `--help`.
    public static var toolHelp: String {
        var text = "OVERVIEW: Check, compare, evaluate and publish Symi's flag documents.\n\nUSAGE: \(usage)\n\n"
        text += "COMMANDS:\n"
        text += table(commands.map { ($0.configuration.name, $0.configuration.abstract) })
        text += "\nGLOBAL OPTIONS:\n" + table(globalRows)
        text += "\nSee 'flagctl help <command>' or 'flagctl <command> --help' for a command's options.\n"
        text += "Exit status: 0 success (diff: same), 1 problems found (diff: different), 2 trouble, 64 usage error.\n"
        return text
    }

    /// A command's `--help`.
    public static func help(for configuration: CommandConfiguration) -> String {
        var text = "OVERVIEW: \(configuration.abstract)\n\n"
        if !configuration.discussion.isEmpty { text += configuration.discussion + "\n\n" }
        text += "USAGE: \(configuration.usage)\n"
        if !configuration.arguments.isEmpty {
            text += "\nARGUMENTS:\n" + table(configuration.arguments.map { ($0.synopsis, $0.help) })
        }
        if !configuration.options.isEmpty {
            text += "\nOPTIONS:\n" + table(configuration.options.map { ($0.synopsis, $0.help) })
        }
        text += "\nGLOBAL OPTIONS:\n" + table(globalRows)
        return text
    }

    private static var globalRows: [(String, String)] {
        GlobalOptions.specs.map { ($0.synopsis, $0.help) } + [("-h, --help", "Show help.")]
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 + "\n" }.joined()
    }
}
