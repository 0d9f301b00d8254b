import Foundation

/// A refund spike inside a guarded change's window, through the real receiver and the service's own job.
public enum GuardTrip {
    /// What happened.
    public struct Figures: Sendable, Equatable {
        /// The guard's status at the end.
        public var status = "not run"
        /// Whether the guard tripped and the environment's head became the previous content, by `guard`.
        public var rolledBack = false
        /// One line for the report.
        public var summary = "guard trip: not run"
    }

    /// Runs the spike on a fresh server.
    public static func run(flagsDirectory: String, factor: Double = 4) throws -> Figures {
        Figures()
    }
}
