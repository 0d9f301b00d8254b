import CommandLineKit
import FlagKit

/// `flagctl guard list|show|add|remove|override`: guards that watch what a change does to the App Store outcomes and
/// act when they turn clearly worse (docs/guards.md; a writer token of the guard's environment).
public enum GuardCommand {
    /// The `guard` word and its commands.
    static var group: CommandGroup<RunContext> {
        CommandGroup(name: "guard", abstract: "List, show, add, remove or override the guards that watch a change's outcomes.",
                     subcommands: [.command(List.self), .command(Show.self), .command(Add.self), .command(Remove.self), .command(Override.self)])
    }

    /// The statuses a guard can have (docs/guards.md).
    static let statuses = ["waiting", "watching", "tripped", "overridden", "closed", "cancelled", "removed"]

    /// The guard's id (`flagctl guard list` shows them).
    static let idArgument = Argument("id", help: "The guard's id (see 'flagctl guard list').") { text throws(UsageError) in
        guard let id = Int64(text), id >= 1 else { throw UsageError("'\(text)' is not a guard id (a positive whole number)") }
        return id
    }

    /// `flagctl guard list ENV [--status S] [--json]`.
    public struct List: Command {
        /// Name, abstract, options, arguments.
        public static let configuration = CommandConfiguration(
            name: "list", abstract: "List an environment's guards, newest first.",
            discussion: """
            Columns: ID, STATUS (waiting: its change is not applied yet; watching; tripped; overridden; closed: its window
            ended without a trip; cancelled: its change ended unapplied; removed), ON (the change and the version it
            watches), RULE, WINDOW ENDS and the LAST DECISION's message. --status takes a comma-separated list.
            """,
            options: [statusOption, jsonSwitch], arguments: [ServerCommandSupport.environmentArgument])

        static let statusOption = Option("status", valueName: "statuses", help: "Only these statuses, comma-separated (default: all).") {
            text throws(UsageError) in
            let statuses = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !statuses.isEmpty else { throw UsageError("--status needs at least one status") }
            if let unknown = statuses.first(where: { !GuardCommand.statuses.contains($0) }) {
                throw UsageError("--status '\(unknown)' is not one of \(GuardCommand.statuses.joined(separator: ", "))")
            }
            return statuses
        }
        static let jsonSwitch = Switch("json", help: "Print the server's JSON array.")

        /// The environment.
        public let environment: String
        /// The statuses asked for; nil: all.
        public let statuses: [String]?
        /// JSON output.
        public let json: Bool

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            environment = try parsed.required(ServerCommandSupport.environmentArgument)
            statuses = try parsed.value(Self.statusOption)
            json = parsed.isSet(Self.jsonSwitch)
        }

        /// Fetches and prints the table.
        public func run(_ context: RunContext) -> Int32 {
            ServerCommandSupport.run(context) { client throws(CommandFailure) in
                let guards = try ServerCommandSupport.call { () throws(ServerError) in try client.guards(environment, statuses: statuses) }
                if json {
                    context.stdout.write(JSONValue.array(guards).prettyString)
                } else if guards.isEmpty {
                    context.print("\(environment): no guards" + (statuses.map { " with status \($0.joined(separator: ", "))" } ?? ""))
                } else {
                    context.stdout.write(TextTable.render(header: GuardRendering.header, rows: guards.map(GuardRendering.row)))
                }
                return ExitStatus.success
            }
        }
    }

    /// `flagctl guard show ID [--json]`.
    public struct Show: Command {
        /// Name, abstract, options, arguments.
        public static let configuration = CommandConfiguration(
            name: "show", abstract: "Show one guard: its rule, what it watches, what it did, and its decisions.",
            options: [jsonSwitch], arguments: [idArgument])

        static let jsonSwitch = Switch("json", help: "Print the server's JSON object.")

        /// The guard.
        public let id: Int64
        /// JSON output.
        public let json: Bool

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            id = try parsed.required(idArgument)
            json = parsed.isSet(Self.jsonSwitch)
        }

        /// Fetches and prints it.
        public func run(_ context: RunContext) -> Int32 {
            ServerCommandSupport.run(context) { client throws(CommandFailure) in
                let details = try ServerCommandSupport.call { () throws(ServerError) in try client.guardDetails(id) }
                context.stdout.write(json ? details.prettyString : GuardRendering.details(details))
                return ExitStatus.success
            }
        }
    }

    /// `flagctl guard remove ID`.
    public struct Remove: Command {
        /// Name, abstract, arguments.
        public static let configuration = CommandConfiguration(
            name: "remove", abstract: "Remove a waiting or watching guard (the schedules it paused resume).",
            discussion: "Exit status: 0 removed, 2 trouble: no such guard, it already tripped or ended (409 not_removable), server refusing.",
            arguments: [idArgument])

        /// The guard.
        public let id: Int64

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) { id = try parsed.required(idArgument) }

        /// Removes and says which.
        public func run(_ context: RunContext) -> Int32 {
            ServerCommandSupport.run(context) { client throws(CommandFailure) in
                let removed = try ServerCommandSupport.call { () throws(ServerError) in try client.removeGuard(id) }
                context.print("removed guard \(id) of \(removed["environment"]?.stringValue ?? "?") \(GuardRendering.target(removed)): "
                    + GuardRendering.rule(removed["rule"]))
                return ExitStatus.success
            }
        }
    }

    /// `flagctl guard override ID -m MESSAGE`.
    public struct Override: Command {
        /// Name, abstract, options, arguments.
        public static let configuration = CommandConfiguration(
            name: "override", abstract: "Override a tripped guard: undo what it did (a second person, with a message).",
            discussion: """
            Only a tripped guard, and only by a writer who neither created it nor wrote the version it watches
            (403 self_override). A rollback it published is undone by publishing the watched version's content again
            (refused with 409 head_moved when someone published since); schedules it paused resume. Where the
            environment's policy protects what the republish touches, it becomes a change request (exit 3).
            Exit status: 0 overridden, 2 trouble (not tripped, self_override, head_moved, server refusing),
            3 overridden, but the republish waits for a second person's approval.
            """,
            options: [ServerCommandSupport.messageOption], arguments: [idArgument])

        /// The guard.
        public let id: Int64
        /// Why.
        public let message: String

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            id = try parsed.required(idArgument)
            message = try ServerCommandSupport.message(parsed)
        }

        /// Overrides and says what it undid.
        public func run(_ context: RunContext) -> Int32 {
            ServerCommandSupport.run(context) { client throws(CommandFailure) in
                let reply = try ServerCommandSupport.call { () throws(ServerError) in try client.overrideGuard(id, message: message) }
                let overridden = ServerClient.guardObject(reply)
                context.print("overrode guard \(id) of \(overridden["environment"]?.stringValue ?? "?") \(GuardRendering.target(overridden)) "
                    + "(\(overridden["status"]?.stringValue ?? "?")): \(message)")
                if let action = overridden["action"], action != .null { context.print("  what it had done: \(GuardRendering.action(action))") }
                if let version = reply["version"]?.integerValue {
                    context.print("  republished the watched version's content as version \(version)")
                }
                if let change = reply["change"]?["id"]?.integerValue {
                    context.print("  the republish touches a protected flag: change request \(change) waits for a second person's approval")
                    context.print("approve (with another writer's token): flagctl approve \(change) -m MESSAGE")
                    return ExitStatus.needsApproval
                }
                return ExitStatus.success
            }
        }
    }
}
