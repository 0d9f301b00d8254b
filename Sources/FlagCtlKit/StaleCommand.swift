import CommandLineKit
import FlagKit

/// `flagctl stale ENV [--days N] [--json]`: flags past their removal date, and flags that have given one value
/// to everyone for N days (candidates for removal from the app and the document).
public struct StaleCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "stale",
        abstract: "List flags past their removal date or constant for N days.",
        discussion: """
        A flag is listed when its policy's removeAfter day is over (past_removal_date), or when it has given
        everyone one value for N days (constant): in the version current N days ago and in every version
        since, its default and every rule's value were that one value. Owners come from the environment's
        policy (flagctl policy ENV).
        Exit status: 0 nothing is stale, 1 flags are listed, 2 trouble (like diff and lint).
        """,
        options: [daysOption, ChangeRendering.jsonSwitch],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// `--days N`, 0 to 3650.
    static let daysOption = Option("days", valueName: "n", help: "How long a flag must have been constant (0 to 3650, default: 30).") {
        text throws(UsageError) in
        guard let days = Int(text), (0...3650).contains(days) else { throw UsageError("--days '\(text)' must be a whole number from 0 to 3650") }
        return days
    }

    /// The environment.
    public let environment: String
    /// The period.
    public let days: Int
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        environment = try parsed.required(ServerCommandSupport.environmentArgument)
        days = try parsed.value(Self.daysOption) ?? 30
        json = parsed.isSet(ChangeRendering.jsonSwitch)
    }

    /// Fetches and prints; the exit status says whether anything is stale.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let report = try ServerCommandSupport.call { () throws(ServerError) in try client.stale(environment, days: days) }
            let flags = (report["flags"]?.arrayValue ?? []).compactMap(\.objectValue)
            if json {
                context.stdout.write(JSONValue.object(report).prettyString)
            } else if flags.isEmpty {
                context.print("\(environment): no stale flags (none past its removal date, none constant for \(days) days)")
            } else {
                context.stdout.write(Self.table(flags, days: days))
                if report["historyLimited"]?.boolValue == true {
                    context.print("(only the newest versions were read: 'constant since' may be earlier)")
                }
            }
            return flags.isEmpty ? ExitStatus.success : ExitStatus.failure
        }
    }

    /// `FLAG OWNER REMOVE AFTER WHY`.
    static func table(_ flags: [[String: JSONValue]], days: Int) -> String {
        let rows = flags.map { flag -> [String] in
            let reasons = (flag["reasons"]?.arrayValue ?? []).compactMap(\.stringValue).map { reason in
                reason == "constant"
                    ? "constant \(flag["value"]?.canonicalString ?? "?") since \(flag["constantSince"]?.stringValue ?? "?")"
                    : "past its removal date"
            }
            return [flag["key"]?.stringValue ?? "?", flag["owner"]?.stringValue ?? "-", flag["removeAfter"]?.stringValue ?? "-",
                    reasons.joined(separator: "; ")]
        }
        return TextTable.render(header: ["FLAG", "OWNER", "REMOVE AFTER", "WHY"], rows: rows)
    }
}
