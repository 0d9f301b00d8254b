import CommandLineKit

/// The `flagserver` tool: serving (the default command), the admin commands that work on the database
/// (`token create|list|revoke`, `backup`, `check`, `restore`), which may run while a server serves it, and `copy`
/// (a SQLite file into an empty PostgreSQL database).
public enum FlagServer {
    /// Where the database is when neither `--database` nor `FLAGSERVER_DATABASE` says.
    public static let defaultDatabase = "./data/flags.sqlite"

    /// `--database PATH`: every command's, before or after the command's name.
    public static let databaseOption = Option(
        "database", valueName: "path|uri",
        help: "SQLite file (default \(defaultDatabase)) or PostgreSQL URI (postgresql://...; several hosts with target_session_attrs=read-write)",
        environment: "FLAGSERVER_DATABASE"
    ) { text throws(UsageError) in
        guard !text.isEmpty else { throw UsageError("--database must not be empty") }
        return text
    }

    /// The command-line tool.
    public static var tool: CommandLineTool<FlagServerContext> {
        CommandLineTool(
            name: "flagserver", abstract: "Serves versioned flag documents from a SQLite file or PostgreSQL over HTTP (see docs/api.md).",
            discussion: """
            Prints "listening on http://HOST:PORT" on standard output when ready. SIGTERM or SIGINT stop it gracefully.
            The commands work on the database and may run while a server serves it (copy: stop it first). Options win over environment variables.
            """,
            globalOptions: [databaseOption],
            subcommands: [.group(TokenCommand.group), .command(BackupCommand.self), .command(CheckCommand.self), .command(RestoreCommand.self),
                          .command(CopyCommand.self), .group(AppStoreCommand.group)],
            defaultCommand: ServeCommand.self)
    }

    /// Runs a command line (without the program name) to completion and returns the exit status: 0, 1 for a failure
    /// (one `flagserver: error: ...` line), 64 for a usage error.
    public static func main(arguments: [String], environment: [String: String], stdout: TextOutput, stderr: TextOutput) -> Int32 {
        switch tool.parse(arguments, environment: environment) {
        case .help(let text):
            stdout.write(text)
            return 0
        case .usageError(let error):
            stderr.write(error.report)
            return UsageError.exitStatus
        case .run(let command, let parsed):
            do throws(UsageError) {
                let database = try parsed.value(databaseOption) ?? defaultDatabase
                return command.run(FlagServerContext(database: database, stdout: stdout, stderr: stderr))
            } catch {
                stderr.write(error.report)
                return UsageError.exitStatus
            }
        }
    }
}
