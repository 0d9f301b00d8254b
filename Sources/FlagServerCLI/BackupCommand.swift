import CommandLineKit
import FlagStore

/// `flagserver backup --to FILE`: a consistent copy while the server keeps serving and writing.
public struct BackupCommand: AdminCommand {
    /// Name, abstract and options.
    public static let configuration = CommandConfiguration(
        name: "backup", abstract: "Consistent copy while the server runs (never overwrites a file).", options: [destinationOption])

    static let destinationOption = Option<String>("to", valueName: "file", help: "The new file.", required: true)

    /// Where the copy goes.
    public let destination: String

    /// A backup to `destination`.
    public init(destination: String) { self.destination = destination }

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) { destination = try parsed.required(Self.destinationOption) }

    /// SQLite's online backup, checked with `integrity_check` before it gets its final name.
    public func run(store: FlagStore, actor: String) throws -> String {
        try store.backup(to: destination)
        return "backup written to \(destination)\n"
    }
}
