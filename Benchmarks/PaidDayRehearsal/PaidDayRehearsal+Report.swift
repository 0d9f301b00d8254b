extension PaidDayRehearsal {
    /// The report: one table per step (installs, with access, gained, lost; by standing, by origin, subscribers,
    /// offline, all), then the two figures the runbook must keep at zero.
    public static func report(_ results: [StepResult]) -> String {
        var lines: [String] = []
        for (index, result) in results.enumerated() {
            lines.append("== step \(index): \(result.name)")
            lines.append(row("group", "installs", "access", "gained", "lost"))
            for (standing, counts) in result.byStanding.sorted(by: { $0.key < $1.key }) { lines.append(row(standing.rawValue, counts)) }
            for (origin, counts) in result.byOrigin.sorted(by: { $0.key < $1.key }) { lines.append(row("installed: \(origin.rawValue)", counts)) }
            lines.append(row("subscribers", result.subscribers))
            lines.append(row("offline, old cache", result.offline))
            lines.append(row("all", result.total))
        }
        let losses = lossesToAvoid(results)
        lines.append("subscribers losing access at some step: \(losses.subscribers)")
        lines.append("early users losing access at some step: \(losses.earlyUsers)")
        lines.append("installs with an unknown install date losing access at some step: \(losses.unknownOrigin)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Losses summed over the steps: subscribers, early users, installs whose date is unknown. The runbook keeps all
    /// three at zero.
    public static func lossesToAvoid(_ results: [StepResult]) -> (subscribers: Int, earlyUsers: Int, unknownOrigin: Int) {
        (results.reduce(0) { $0 + $1.subscribers.lost },
         results.reduce(0) { $0 + ($1.byOrigin[.early]?.lost ?? 0) },
         results.reduce(0) { $0 + ($1.byOrigin[.unknown]?.lost ?? 0) })
    }

    static func row(_ group: String, _ counts: Counts) -> String {
        row(group, String(counts.installs), String(counts.withAccess), String(counts.gained), String(counts.lost))
    }

    static func row(_ group: String, _ columns: String...) -> String {
        group.padding(toLength: 24, withPad: " ", startingAt: 0)
            + columns.map { String(repeating: " ", count: max(0, 9 - $0.count)) + $0 }.joined(separator: " ")
    }
}
