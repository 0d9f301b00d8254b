import Foundation

/// The guard rehearsed through the real server (docs/guards.md, "Through the real receiver"): a refund spike inside a
/// guarded change's window trips the guard and the service's own job rolls the change back (``GuardTrip``), and
/// normal weeks at the default thresholds count the false trips (``GuardWeeks``).
public enum GuardRehearsal {
    /// Both parts' figures.
    public struct Figures: Sendable {
        /// The spike's run.
        public var trip: GuardTrip.Figures
        /// The same population without the spike, through the same job.
        public var control: GuardTrip.Figures
        /// The normal weeks.
        public var weeks: GuardWeeks.Figures
        /// Whether the spike tripped the guard and the environment's head became the previous content, by `guard`.
        public var rolledBack: Bool { trip.rolledBack && control.status == "closed" }
    }

    /// Runs the spike, then `weeks` normal weeks (none with 0), the weeks ending before `today` (ms, midnight UTC).
    public static func run(weeks: Int, flagsDirectory: String, today: Int64, progress: (String) -> Void = { _ in }) throws -> Figures {
        let trip = try GuardTrip.run(flagsDirectory: flagsDirectory)
        progress(trip.summary)
        let control = try GuardTrip.run(flagsDirectory: flagsDirectory, factor: 1)
        progress(control.summary)
        var settings = GuardWeeks.Settings()
        settings.weeks = weeks
        let normal = try GuardWeeks.run(settings, flagsDirectory: flagsDirectory, start: today - 12 * NotificationWeek.day, progress: progress)
        return Figures(trip: trip, control: control, weeks: normal)
    }

    /// The figures as the command prints them.
    public static func report(_ figures: Figures) -> String {
        let weeks = figures.weeks
        var lines = ["== guards through the receiver", figures.trip.summary, figures.control.summary]
        if weeks.weeks > 0 {
            lines.append("normal weeks: \(weeks.weeks) (refunds at 0.3, 1 and 3 an hour in turn, every time of day), default guard on refunds per hour, "
                         + "evaluated at the end of each of the 72 hours of the window on the server's hourly outcomes: \(weeks.looks) looks")
            lines.append("weeks tripped: \(weeks.tripped); looks at the minimum count: \(weeks.looksAtMinimumCount), smallest p-value among them "
                         + String(format: "%.2g", weeks.smallestPValue) + " (per-look alpha 2.3e-06)")
            lines.append("refunds posted: \(weeks.notifications) (every one 200); time: " + String(format: "%.1f s", weeks.seconds))
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}
