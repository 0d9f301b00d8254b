import CommandLineKit
import FlagKit
import Foundation

/// `flagctl audit [--env ENV] [--since TIME] [--actor NAME] [--action A] [--outcome O] [--limit N] [--json]`: the
/// server's audit log, newest first (an unscoped admin token).
public struct AuditCommand: Command {
    /// Name, abstract, options.
    public static let configuration = CommandConfiguration(
        name: "audit",
        abstract: "List the server's audit log: who did or tried what, where, when, and how it ended.",
        discussion: """
        Newest first: publishes, refused writes (with the status and why), token, webhook, policy and change events.
        TIME is RFC 3339 with an offset (2027-03-01T00:00:00+01:00) or a span back from now: 90s, 30m, 24h, 7d.
        Needs an admin token for every environment in FLAGCTL_TOKEN.
        Exit status: 0 listed (also when nothing matched), 2 the server cannot be reached or refuses.
        """,
        options: [environmentOption, sinceOption, actorOption, actionOption, outcomeOption, limitOption, jsonSwitch])

    static let environmentOption = Option("env", valueName: "name", help: "Only this environment's lines.") { text throws(UsageError) in
        try ServerCommandSupport.environment(text)
    }
    static let sinceOption = Option("since", valueName: "time", help: "Only lines at or after TIME (RFC 3339, or 30m, 24h, 7d ago).") {
        text throws(UsageError) in try AuditCommand.time(text, now: Int64(Date().timeIntervalSince1970 * 1000))
    }
    static let actorOption = Option<String>("actor", valueName: "name", help: "Only lines of this token name ('-': no valid token).")
    static let actionOption = Option<String>("action", valueName: "action", help: "Only this action (publish, token.create, webhook.delete, ...).")
    static let outcomeOption = Option("outcome", valueName: "ok|refused|failed", help: "Only lines with this outcome.") { text throws(UsageError) in
        guard ["ok", "refused", "failed"].contains(text) else { throw UsageError("--outcome '\(text)' must be ok, refused or failed") }
        return text
    }
    static let limitOption = ServerCommandSupport.limitOption("At most this many lines (1 to 10000, default: 100).", maximum: 10_000)
    static let jsonSwitch = Switch("json", help: "Print the lines as the server's JSON array.")

    /// What to ask for.
    public let filter: AuditFilter
    /// How many lines at most.
    public let limit: Int
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        filter = AuditFilter(environment: try parsed.value(Self.environmentOption), sinceMilliseconds: try parsed.value(Self.sinceOption),
                             actor: try parsed.value(Self.actorOption), action: try parsed.value(Self.actionOption),
                             outcome: try parsed.value(Self.outcomeOption))
        limit = try parsed.value(Self.limitOption) ?? 100
        json = parsed.isSet(Self.jsonSwitch)
    }

    /// Fetches (page by page) and prints.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let entries = try ServerCommandSupport.call { () throws(ServerError) in try client.audit(filter, limit: limit) }
            context.stdout.write(json ? JSONValue.array(entries).prettyString : Self.table(entries))
            return ExitStatus.success
        }
    }

    /// `TIME` as milliseconds since 1970: RFC 3339 with an offset, or `<n>s|m|h|d` before `now`.
    static func time(_ text: String, now: Int64) throws(UsageError) -> Int64 {
        let units: [Character: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0, count <= 36_500 * 86_400 {
            return now - count * unit
        }
        do {
            return try RFC3339.milliseconds(parsing: text)
        } catch {
            throw UsageError("--since '\(text)' is neither an RFC 3339 time with an offset (2027-03-01T00:00:00Z) nor a span like 30m, 24h, 7d")
        }
    }

    /// `TIME ACTOR ACTION ENV TARGET OUTCOME` columns, then why (a refusal's reason, else the detail), the only free text.
    static func table(_ entries: [JSONValue]) -> String {
        guard !entries.isEmpty else { return "no audit lines match\n" }
        let rows = entries.map { entry -> [String] in
            func text(_ name: String) -> String { entry[name]?.stringValue ?? "-" }
            let status = entry["status"]?.integerValue.map { " \($0)" } ?? ""
            let why = entry["reason"]?.stringValue ?? text("detail")
            return [text("at"), text("actor"), text("action"), text("environment"), text("target"), text("outcome") + status, why]
        }
        return TextTable.render(header: ["TIME", "ACTOR", "ACTION", "ENV", "TARGET", "OUTCOME", "WHY"], rows: rows)
    }
}

extension JSONValue {
    /// `self[name]` for an object (nil otherwise or when absent).
    subscript(name: String) -> JSONValue? { objectValue?[name] }
}
