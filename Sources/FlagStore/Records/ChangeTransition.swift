/// What a status transition of a change did (`approveChange`, `rejectChange`, `cancelChange`, ...): each is a
/// compare-and-set on the status, so of two racing deciders exactly one changes it.
public enum ChangeTransition: Sendable, Equatable {
    /// The change moved to its new status (with its audit line, in one transaction); the record after it.
    case done(ChangeRecord)
    /// The change's status did not allow it; nothing was written. The record as it is, so the caller can say
    /// why (`409 not_pending` with the status).
    case refused(ChangeRecord)

    /// Whether the transition happened.
    public var happened: Bool {
        if case .done = self { return true }
        return false
    }

    /// The change, after the transition or as it is.
    public var record: ChangeRecord {
        switch self {
        case .done(let record), .refused(let record): record
        }
    }
}

/// What `applyChange` did.
public enum ChangeApplication: Sendable, Equatable {
    /// Published and marked `applied` in one transaction. The outcome is `.published` with the new version, or
    /// `.unchanged` when the current document already was the merged one (then `appliedVersion` is the current
    /// version and nothing else was written but the change's status and its audit line).
    case applied(ChangeRecord, PublishOutcome)
    /// The change is no longer `scheduled` or `approved` (applied already, cancelled, ...): nothing was written.
    case notApplicable(ChangeRecord)
    /// Another version came first and `rebase` found the change cannot be published on it: nothing was written (the
    /// caller marks it conflicted or failed, as it decided).
    case declined(ChangeRecord)

    /// The change, after applying or as it is.
    public var record: ChangeRecord {
        switch self {
        case .applied(let record, _), .notApplicable(let record), .declined(let record): record
        }
    }
}
