import CommandLineKit

/// The `flagctl` tool: its commands, the top-level parse and the entry point `main.swift` calls.
public enum FlagCtl {
    /// The registered commands, in the order `--help` lists them.
    public static var commands: [any Command.Type] {
        [ValidateCommand.self, LintCommand.self, StoreKitCommand.self, DiffCommand.self, EvalCommand.self, GetCommand.self, HistoryCommand.self,
         PublishCommand.self, SetCommand.self, RollbackCommand.self, ScheduleCommand.self, SchedulesCommand.self, UnscheduleCommand.self,
         RequestsCommand.self, ApproveCommand.self, RejectCommand.self, StaleCommand.self, PolicyCommand.self]
            + [AuditCommand.self, WebhooksCommand.self, OutcomesCommand.self]
    }

    /// The registered groups of commands (`webhook add|remove|deliveries`), listed after the commands.
    static var groups: [CommandGroup<RunContext>] { [WebhookCommand.group, ExperimentCommand.group, GuardCommand.group] }

    /// The command-line tool: the commands and the global options (`--server`, and `--token` refused).
    public static var tool: CommandLineTool<RunContext> {
        CommandLineTool(
            name: "flagctl", abstract: "Check, compare, evaluate and publish Symi's flag documents.",
            discussion: "Exit status: 0 success (diff: same), 1 problems found (diff: different, stale: flags listed), 2 trouble, "
                + "3 nothing published: a change request waits for approval, 64 usage error.",
            globalOptions: [GlobalOptions.serverOption, GlobalOptions.tokenOption],
            subcommands: commands.map { .command($0) } + groups.map { .group($0) })
    }

    /// `flagctl [--server <url>] <command> [<options>] [<arguments>]`.
    public static var usage: String { tool.toolUsage }

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
        switch tool.parse(arguments, environment: environment) {
        case .help(let text):
            return .help(text)
        case .usageError(let error):
            return .usageError(error)
        case .run(let command, let parsed):
            do throws(UsageError) {
                return .run(command, try GlobalOptions.resolve(parsed, environment: environment))
            } catch {
                return .usageError(error)
            }
        }
    }

    /// Runs a command line to completion and returns the exit status.
    public static func main(arguments: [String], environment: [String: String], stdout: TextOutput, stderr: TextOutput,
                            stdoutIsTerminal: Bool, input: LineInput = NoInput()) -> Int32 {
        switch parse(arguments, environment: environment) {
        case .help(let text):
            stdout.write(text)
            return ExitStatus.success
        case .usageError(let error):
            stderr.write(error.report)
            return ExitStatus.usage
        case .run(let command, let globals):
            let context = RunContext(globals: globals, stdout: stdout, stderr: stderr, stdoutIsTerminal: stdoutIsTerminal,
                                     environment: environment, input: input)
            return command.run(context)
        }
    }

    /// The usage line of a command (`flagctl diff [--json] ... <a> [<b>]`).
    public static func usage(of command: any Command.Type) -> String { tool.usage(of: command) }
}
