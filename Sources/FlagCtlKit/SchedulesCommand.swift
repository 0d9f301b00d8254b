import CommandLineKit
import FlagKit

/// `flagctl schedules ENV [--all] [--json]`: the changes waiting for a time, the next one first.
public struct SchedulesCommand: ChangeListingCommand {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "schedules",
        abstract: "List an environment's scheduled changes, the next one first.",
        discussion: """
        Shows the changes still waiting for their time (scheduled, and pending ones that also wait for an
        approval); --all adds those that ran or ended (applied, conflicted, failed, cancelled, ...).
        Exit status: 0 listed, 2 the server cannot be reached or refuses.
        """,
        options: [ChangeRendering.allSwitch, ChangeRendering.jsonSwitch],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// The environment, `--all`, `--json`.
    public let options: ChangeListingOptions

    /// The listing `options` ask for.
    public init(options: ChangeListingOptions) { self.options = options }

    /// `GET .../schedules`.
    public static let listing = ServerClient.ChangeListing.schedules
    /// Listed without `--all`.
    public static let waiting = ["scheduled", "pending", "approved"]

    /// Nothing to list.
    public static func nothing(in environment: String, all: Bool) -> String {
        "\(environment): no \(all ? "" : "waiting ")scheduled changes"
    }

    /// `ID STATUS AT AUTHOR CHANGES MESSAGE`.
    public static func table(_ changes: [ChangeSummary]) -> String {
        TextTable.render(header: ["ID", "STATUS", "APPLY AT", "AUTHOR", "CHANGES", "MESSAGE"], rows: changes.map { change in
            [String(change.id), change.status, change.applyAt ?? "-", change.author, change.itemList, change.message]
        })
    }
}
