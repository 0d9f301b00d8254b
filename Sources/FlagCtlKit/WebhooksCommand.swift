import CommandLineKit
import FlagKit

/// `flagctl webhooks [--json]`: the server's active webhooks (an unscoped admin token).
public struct WebhooksCommand: Command {
    /// Name, abstract, options.
    public static let configuration = CommandConfiguration(
        name: "webhooks", abstract: "List the server's webhooks: id, URL, events, environments (never secrets).",
        discussion: "Register one with 'flagctl webhook add'. Exit status: 0 listed, 2 the server cannot be reached or refuses.",
        options: [jsonSwitch])

    static let jsonSwitch = Switch("json", help: "Print the server's JSON array.")

    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) { json = parsed.isSet(Self.jsonSwitch) }

    /// Fetches and prints.
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let webhooks = try ServerCommandSupport.call { () throws(ServerError) in try client.webhooks() }
            if json {
                context.stdout.write(JSONValue.array(webhooks).prettyString)
            } else if webhooks.isEmpty {
                context.print("no webhooks")
            } else {
                context.stdout.write(TextTable.render(header: ["ID", "EVENTS", "ENVIRONMENTS", "CREATED", "BY", "URL"], rows: webhooks.map(Self.row)))
            }
            return ExitStatus.success
        }
    }

    /// One webhook's row: the URL last (the only free text).
    static func row(_ webhook: JSONValue) -> [String] {
        [webhook["id"]?.integerValue.map(String.init) ?? "?", Self.names(webhook["events"]) ?? "-", Self.names(webhook["environments"]) ?? "*",
         webhook["createdAt"]?.stringValue ?? "-", webhook["createdBy"]?.stringValue ?? "-", webhook["url"]?.stringValue ?? "-"]
    }

    /// `a,b` for an array of strings; nil for `null` (every environment).
    static func names(_ value: JSONValue?) -> String? {
        value?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: ",") }
    }
}
