import CommandLineKit
import FlagKit

/// How flagctl shows changes (schedules and change requests) in a terminal: the same words in every command,
/// and the next command to run where one is needed (a runbook can be followed from the output alone).
enum ChangeRendering {
    /// A change that touches a protected flag was recorded instead of published: what it is, why, and how a
    /// second person approves or rejects it. The caller exits with `ExitStatus.needsApproval`.
    static func printRequest(_ proposal: ChangeProposal, _ context: RunContext) {
        let change = proposal.change
        let protected = change.protectedFlags.isEmpty ? "the environment is protected" : change.protectedFlags.joined(separator: ", ")
        context.print("nothing was published: \(change.environment) change request \(change.id) needs a second person's approval")
        context.print("  protected:  \(protected)")
        context.print("  changes:    \(change.itemList)")
        if let applyAt = change.applyAt { context.print("  applies at: \(applyAt) (once approved)") }
        if let expiresAt = change.expiresAt { context.print("  expires:    \(expiresAt)") }
        printDiff(proposal, context)
        context.print("approve (with another writer's token): flagctl approve \(change.id) -m MESSAGE")
        context.print("reject:                                flagctl reject \(change.id) -m MESSAGE")
    }

    /// A recorded schedule: when, what, and how to cancel it.
    static func printSchedule(_ proposal: ChangeProposal, _ context: RunContext) {
        let change = proposal.change
        context.print("scheduled \(change.environment) change \(change.id) for \(change.applyAt ?? "-"): \(change.itemList)")
        printDiff(proposal, context)
        context.print("cancel: flagctl unschedule \(change.id)")
    }

    /// The diff lines, then the impact's lines.
    static func printDiff(_ proposal: ChangeProposal, _ context: RunContext) {
        for line in proposal.lines { context.print("  \(line)") }
        for line in proposal.impactLines { context.print("  impact: \(line)") }
    }

    /// One sentence for a change's state: `applied as version 9 at T`, `scheduled for T`, `conflicted: /flags/x
    /// changed since`, ...
    static func state(_ change: ChangeSummary) -> String {
        switch change.status {
        case "applied": "applied as version \(change.appliedVersion.map(String.init) ?? "?") at \(change.appliedAt ?? "?")"
        case "scheduled": "scheduled for \(change.applyAt ?? "?")"
        case "pending": "pending approval" + (change.expiresAt.map { " until \($0)" } ?? "")
        case "approved": "approved, being published"
        case "conflicted", "stale": "\(change.status): \(change.conflicts.joined(separator: ", ")) changed since it was made"
        case "failed": "failed: \(change.reason ?? "?")"
        default: "\(change.status) by \(change.decidedBy ?? "?")" + (change.decisionMessage.map { ": \($0)" } ?? "")
        }
    }

    /// `--json` of a list: the changes as the server sent them.
    static func json(_ changes: [ChangeSummary]) -> String {
        JSONValue.array(changes.map(\.json)).prettyString
    }

    /// A change id argument (`12`).
    static let idArgument = Argument("id", help: "The change's id (from flagctl schedules or flagctl requests).") {
        text throws(UsageError) in
        guard let id = Int64(text), id >= 1 else { throw UsageError("'\(text)' is not a change id (a positive whole number)") }
        return id
    }

    /// `--json`.
    static let jsonSwitch = Switch("json", help: "Print the server's JSON instead of a table.")

    /// `--all`.
    static let allSwitch = Switch("all", help: "List changes in every status, not only those still waiting.")

    /// `-m`/`--message`, optional: a note with a decision (an approval, a cancellation).
    static let noteOption = Option<String>("message", valueName: "text", short: "m", help: "Why, or a note (recorded with the decision).")
}
