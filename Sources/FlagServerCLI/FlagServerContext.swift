import CommandLineKit

/// What every `flagserver` command gets at run time: the database the tool's `--database` names, and where to write.
public struct FlagServerContext {
    /// The SQLite file or PostgreSQL URI (`--database`, else `FLAGSERVER_DATABASE`, else `./data/flags.sqlite`).
    public let database: String
    /// Normal output (the ready line, an admin command's result).
    public let stdout: TextOutput
    /// Errors.
    public let stderr: TextOutput

    /// A context.
    public init(database: String, stdout: TextOutput, stderr: TextOutput) {
        self.database = database
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Writes `flagserver: error: message` to standard error and gives exit status 1.
    func fail(_ message: String) -> Int32 {
        stderr.write("flagserver: error: \(message)\n")
        return 1
    }
}
