/// Which audit lines `FlagStore.auditEntries(query:)` returns: every filter that is set must hold; the page is
/// newest first, `limit` lines at most, all older than `before` when that is set.
///
/// `GET /v1/audit?env=&since=&until=&actor=&action=&outcome=&limit=&before=` maps one to one onto it.
public struct AuditQuery: Sendable, Equatable {
    /// Only lines about this environment.
    public var environment: String?
    /// Only lines at or after this instant (milliseconds since 1970 UTC).
    public var sinceMilliseconds: Int64?
    /// Only lines before this instant (exclusive, so consecutive windows do not overlap).
    public var untilMilliseconds: Int64?
    /// Only lines by this actor (a token's name).
    public var actor: String?
    /// Only lines of this action (`publish`, `change.approve`, ...).
    public var action: String?
    /// Only lines with this outcome.
    public var outcome: AuditOutcome?
    /// At most this many lines, 1...1000.
    public var limit: Int
    /// Only lines with an id below this (the previous page's `next`).
    public var before: Int64?

    /// The allowed page sizes.
    public static let limitRange = 1...1000

    /// A query; with no filters, the newest 100 lines.
    public init(environment: String? = nil, sinceMilliseconds: Int64? = nil, untilMilliseconds: Int64? = nil,
                actor: String? = nil, action: String? = nil, outcome: AuditOutcome? = nil, limit: Int = 100,
                before: Int64? = nil) {
        self.environment = environment
        self.sinceMilliseconds = sinceMilliseconds
        self.untilMilliseconds = untilMilliseconds
        self.actor = actor
        self.action = action
        self.outcome = outcome
        self.limit = limit
        self.before = before
    }
}

/// One page of the audit log.
public struct AuditPage: Sendable, Equatable {
    /// The lines, newest first.
    public let entries: [AuditEntry]
    /// The `before` of the next page; nil when this page is the last (`{"entries": [...], "next": null}`).
    public let next: Int64?
}
