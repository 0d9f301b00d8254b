/// Where a change is in its life (`docs/governance.md`, the statuses table). The store's trigger allows only
/// the transitions listed in `next`; every status without one is final.
public enum ChangeStatus: String, Sendable, CaseIterable, Comparable {
    /// A change request waiting for a second person.
    case pending
    /// Waiting for its `applyAt` (approved already, when it needed approval).
    case scheduled
    /// Approved for immediate publication and handed to the writer (persisted first, so a crash loses nothing).
    case approved
    /// Published as `appliedVersion` at `appliedAt`.
    case applied
    /// At its time an item had been changed since (`conflicts`); nothing published.
    case conflicted
    /// A pending request whose items a later publish changed (`conflicts`); must be proposed again.
    case stale
    /// The merged document did not validate (`reason`, `details`).
    case failed
    /// Refused by a second person (`decidedBy`, `decisionMessage`).
    case rejected
    /// Not approved within the policy's `requestTTLHours`.
    case expired
    /// Withdrawn before it ran.
    case cancelled

    /// The statuses this one may become.
    public var next: Set<ChangeStatus> {
        switch self {
        case .pending: [.scheduled, .approved, .rejected, .expired, .stale, .cancelled]
        case .scheduled: [.applied, .conflicted, .failed, .cancelled]
        case .approved: [.applied, .conflicted, .failed]
        case .applied, .conflicted, .stale, .failed, .rejected, .expired, .cancelled: []
        }
    }

    /// Nothing happens to the change any more.
    public var isFinal: Bool { next.isEmpty }

    /// The statuses from which a change may be published: `scheduled` (its time came) and `approved`.
    public static let applicable: Set<ChangeStatus> = [.scheduled, .approved]

    /// The statuses `DELETE /v1/changes/{id}` may cancel (`409 not_cancellable` otherwise).
    public static let cancellable: Set<ChangeStatus> = [.pending, .scheduled]

    /// Declaration order, for stable listings.
    public static func < (lhs: ChangeStatus, rhs: ChangeStatus) -> Bool {
        let order = allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }

    /// `'pending', 'scheduled'`: a SQL list of literals for `status IN (...)` (raw values are fixed words, no input).
    static func sqlList(_ statuses: Set<ChangeStatus>) -> String {
        statuses.sorted().map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}

/// What a change was made from.
public enum ChangeKind: String, Sendable, CaseIterable {
    /// One or more flags set (`PUT .../flags/{key}`, a schedule's `flags`).
    case flags
    /// A whole document (`PUT .../document`, a schedule's `document`).
    case document
    /// A rollback to an old version's content.
    case rollback
}
