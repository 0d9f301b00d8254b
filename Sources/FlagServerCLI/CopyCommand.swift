import CommandLineKit
import FlagStore
import Foundation

/// `flagserver copy --to URI`: the SQLite database (`--database`) copied into an empty PostgreSQL database, every
/// row compared and every version's hash verified, in one transaction (`FlagStore.copy(toPostgres:actor:)`).
public struct CopyCommand: ParsableCommand {
    /// Name, abstract and options.
    public static let configuration = CommandConfiguration(
        name: "copy", abstract: "Copy the SQLite database into an empty PostgreSQL database, verifying every row and hash.",
        discussion: """
            Reads the SQLite file --database names (default \(FlagServer.defaultDatabase)) and writes everything it holds \
            (environments, every version with its number, hash and epoch, tokens, audit, changes, policies, webhooks and \
            their deliveries) into the PostgreSQL database --to names, which must be empty, in one transaction: on any \
            failure nothing is written and the copy can run again. Stop the server first: what it writes after the copy \
            began is not copied. Then start every node with --database set to the same URI.
            """,
        options: [targetOption])

    static let targetOption = Option("to", valueName: "uri", help: "The empty PostgreSQL database (postgresql://... or postgres://...).",
                                     required: true) { text throws(UsageError) in
        // The value is not echoed: a mistyped URI may still hold a password.
        guard FlagStore.isPostgresURI(text) else { throw UsageError("--to must be a PostgreSQL URI (postgresql://... or postgres://...)") }
        return text
    }

    /// The PostgreSQL database to copy into.
    public let target: String

    /// A copy into `target`.
    public init(target: String) { self.target = target }

    /// From the parsed command line. The source is the tool's `--database` and must be a SQLite file: a URI there
    /// (also from `FLAGSERVER_DATABASE`) is a usage error.
    public init(parsed: ParsedArguments) throws(UsageError) {
        target = try parsed.required(Self.targetOption)
        if let source = try parsed.value(FlagServer.databaseOption), FlagStore.isPostgresURI(source) {
            let origin = parsed.origin(of: FlagServer.databaseOption) == .commandLine ? "--database" : "FLAGSERVER_DATABASE"
            throw parsed.usageError("copy reads a SQLite file, but \(origin) names PostgreSQL; give the SQLite file with --database PATH")
        }
    }

    /// Copies, prints the report; 1 with one error line when the source is missing or damaged, the target not
    /// empty or unreachable, or anything fails on the way (then nothing was written).
    public func run(_ context: FlagServerContext) -> Int32 {
        let source = context.database
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return context.fail("no SQLite database at \(source) (name it with --database PATH)")
        }
        let store: FlagStore
        do {
            store = try FlagStore.open(location: source)
        } catch {
            return context.fail("\(error)")
        }
        defer { store.close() }
        do {
            let report = try store.copy(toPostgres: target, actor: "flagserver-cli")
            context.stdout.write(report.summary)
            context.stdout.write("start every node with --database '\(report.target)' (with the password, if it has one)\n")
            return 0
        } catch {
            return context.fail("\(error)")
        }
    }
}
