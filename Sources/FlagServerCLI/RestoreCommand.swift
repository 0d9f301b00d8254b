import CommandLineKit
import FlagStore

/// `flagserver restore --from FILE`: the backup's content replaces the database's, in a new epoch (server stopped).
public struct RestoreCommand: AdminCommand {
    /// Name, abstract and options.
    public static let configuration = CommandConfiguration(
        name: "restore", abstract: "Replace the database by a backup (server stopped); starts a new epoch.", options: [sourceOption])

    static let sourceOption = Option<String>("from", valueName: "file", help: "The backup.", required: true)

    /// The backup file.
    public let source: String

    /// A restore from `source`.
    public init(source: String) { self.source = source }

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) { source = try parsed.required(Self.sourceOption) }

    /// Restores, and says which versions the database now holds and in which epoch.
    public func run(store: FlagStore, actor: String) throws -> String {
        let epoch = try store.restore(from: source, actor: actor)
        let versions = try store.latestVersions().map { "\($0.key)=\($0.value.number)" }.sorted().joined(separator: ",")
        return "restored \(source) into \(store.location): versions \(versions.isEmpty ? "none" : versions), epoch \(epoch)\n"
    }
}
