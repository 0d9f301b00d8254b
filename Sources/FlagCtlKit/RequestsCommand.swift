import CommandLineKit
import FlagKit

/// `flagctl requests ENV [--all] [--json]`: change requests waiting for a second person, newest first.
public struct RequestsCommand: ChangeListingCommand {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "requests",
        abstract: "List an environment's change requests waiting for approval, newest first.",
        discussion: """
        A change that touches a protected flag waits for another person's approval (flagctl approve ID) or
        rejection (flagctl reject ID -m MESSAGE). --all also lists decided ones (approved, applied, rejected,
        expired, stale, cancelled).
        Exit status: 0 listed, 2 the server cannot be reached or refuses.
        """,
        options: [ChangeRendering.allSwitch, ChangeRendering.jsonSwitch],
        arguments: [ServerCommandSupport.environmentArgument]
    )

    /// The environment, `--all`, `--json`.
    public let options: ChangeListingOptions

    /// The listing `options` ask for.
    public init(options: ChangeListingOptions) { self.options = options }

    /// `GET .../requests`.
    public static let listing = ServerClient.ChangeListing.requests
    /// Listed without `--all`.
    public static let waiting = ["pending"]

    /// Nothing to list.
    public static func nothing(in environment: String, all: Bool) -> String {
        "\(environment): no \(all ? "" : "pending ")change requests"
    }

    /// `ID STATUS CREATED AUTHOR PROTECTED CHANGES MESSAGE`.
    public static func table(_ changes: [ChangeSummary]) -> String {
        TextTable.render(header: ["ID", "STATUS", "CREATED", "AUTHOR", "PROTECTED", "CHANGES", "MESSAGE"], rows: changes.map { change in
            [String(change.id), change.status, change.createdAt, change.author,
             change.protectedFlags.isEmpty ? "(environment)" : change.protectedFlags.joined(separator: ","), change.itemList,
             change.message]
        })
    }
}
