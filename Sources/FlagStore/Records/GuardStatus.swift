/// Where a guard is in its life (docs/guards.md, "The service"). `waiting` and `watching` may still change;
/// `tripped` only by an override; the others are final.
public enum GuardStatus: String, Sendable, CaseIterable {
    /// Its change is not applied yet.
    case waiting
    /// Its version is published and its window is running: evaluated at every pass of the jobs.
    case watching
    /// It tripped; `action` says what was done.
    case tripped
    /// A second person overrode the trip.
    case overridden
    /// Its window ended without a trip.
    case closed
    /// Its change ended without being applied (rejected, cancelled, expired, conflicted, failed, stale).
    case cancelled
    /// Removed by a person while waiting or watching.
    case removed

    /// The statuses a person may remove a guard in.
    public static let removable: Set<GuardStatus> = [.waiting, .watching]

    /// `'a', 'b'` for an SQL `IN` list (the names are fixed words, never input).
    static func sqlList(_ statuses: Set<GuardStatus>) -> String {
        statuses.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
    }
}

/// What a guard's status change did (`startWatching`, `tripGuard`, `overrideGuard`, ...): each is a compare-and-set on
/// the status, so of two racing passes or people exactly one changes it.
public enum GuardTransition: Sendable, Equatable {
    /// The guard moved to its new status (with its audit line, in one transaction); the record after it.
    case done(GuardRecord)
    /// The guard's status did not allow it; nothing was written. The record as it is.
    case refused(GuardRecord)

    /// Whether the transition happened.
    public var happened: Bool {
        if case .done = self { return true }
        return false
    }

    /// The guard, after the transition or as it is.
    public var record: GuardRecord {
        switch self {
        case .done(let record), .refused(let record): record
        }
    }
}
