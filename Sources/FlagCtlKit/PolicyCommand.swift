import CommandLineKit
import FlagKit

/// `flagctl policy ENV [--set FILE]`: shows (or, with an admin token, replaces) an environment's governance
/// policy: which flags are protected, request lifetime, owners and removal dates.
public struct PolicyCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "policy",
        abstract: "Show or set an environment's policy (protected flags, owners, removal dates).",
        discussion: """
        Prints the policy in force as JSON, with who set it and when. --set FILE replaces it (admin token; the
        server checks it and names every problem with its JSON path) and prints the new one. The format is in
        docs/governance.md ("Policies"); flags/policy/ENV.json seeds it at the server's first start.
        Exit status: 0 shown or set, 2 trouble: invalid file, server unreachable or refusing.
        """,
        options: [setOption],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// `--set FILE`.
    static let setOption = Option<String>("set", valueName: "file", help: "Replace the policy with this file's ('-': standard input).")

    /// The environment.
    public let environment: String
    /// The new policy's file.
    public let file: String?

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        file = try parsed.value(Self.setOption)
    }

    /// Shows, or sets and shows.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let record: [String: JSONValue]
            if let file {
                let bytes: [UInt8]
                do throws(FileReadError) {
                    bytes = try FileReader.read(file)
                } catch {
                    throw .unreadable(error)
                }
                record = try ServerCommandSupport.call { () throws(ServerError) in try client.setPolicy(environment, bytes) }
            } else {
                record = try ServerCommandSupport.call { () throws(ServerError) in try client.policy(environment) }
            }
            context.stdout.write(JSONValue.object(record).prettyString)
            return ExitStatus.success
        }
    }
}
