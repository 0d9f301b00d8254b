import FlagKit

/// One change as stored: a schedule, a change request, or both (`docs/governance.md`). Times are milliseconds
/// since 1970 UTC; `jsonValue` is the API's form.
public struct ChangeRecord: Sendable, Equatable {
    /// The change's id (one id space for schedules and requests: `flagctl approve 12`, `unschedule 12`).
    public let id: Int64
    /// The environment it changes.
    public let environment: String
    /// What it was made from.
    public let kind: ChangeKind
    /// What it sets.
    public let changeSet: ChangeSet
    /// The version it was reviewed against.
    public let baseVersion: Int
    /// Who proposed it (a token's name); the author of the version it publishes.
    public let author: String
    /// Why; the message of the version it publishes.
    public let message: String
    /// When it was made.
    public let createdAtMilliseconds: Int64
    /// When it is to be published; nil: at approval.
    public let applyAtMilliseconds: Int64?
    /// When a pending request expires.
    public let expiresAtMilliseconds: Int64?
    /// It needed (or needs) a second person's approval.
    public let needsApproval: Bool
    /// The flags it touches.
    public let touchedFlags: [String]
    /// The protected flags among them.
    public let protectedFlags: [String]
    /// Where it is in its life.
    public let status: ChangeStatus
    /// Who approved it.
    public let approvedBy: String?
    /// Who decided it (approved, rejected, cancelled; `scheduler` for an expiry).
    public let decidedBy: String?
    /// When it was decided.
    public let decidedAtMilliseconds: Int64?
    /// The decider's message.
    public let decisionMessage: String?
    /// When it was really published (after a restart, later than `applyAt`).
    public let appliedAtMilliseconds: Int64?
    /// The version that made it live.
    public let appliedVersion: Int?
    /// For `conflicted` and `stale`: the items someone changed since.
    public let conflicts: [ChangeSet.Item]
    /// For `failed`: why.
    public let reason: String?
    /// For `failed`: the validation issues as JSON, or other structured detail.
    public let details: JSONValue?
    /// The tripped `pauseSchedules` guard that holds this schedule (not published when due until the guard is
    /// overridden or removed); nil when none does.
    public let heldByGuard: Int64?

    /// The columns `init(row:)` reads, for a query on `changes c JOIN environments e`.
    static let columns = ["id", "kind", "change_set", "base_version", "author", "message", "created_at", "apply_at",
                          "expires_at", "needs_approval", "touched_flags", "protected_flags", "status", "approved_by",
                          "decided_by", "decided_at", "decision_message", "applied_at", "applied_version", "conflicts",
                          "reason", "details", "held_by_guard"].map { "c.\($0) AS \($0)" }.joined(separator: ", ") + ", e.name AS environment"

    /// Reads a row selected with `columns`; unreadable stored JSON is reported as corruption.
    init(row: Row) throws {
        let id = try row.int64("id")
        let kindText = try row.text("kind")
        let statusText = try row.text("status")
        guard let kind = ChangeKind(rawValue: kindText), let status = ChangeStatus(rawValue: statusText) else {
            throw StoredJSON.corrupt("change \(id) has kind \(kindText), status \(statusText)")
        }
        let changeSet: ChangeSet
        do {
            changeSet = try ChangeSet.decode(Array(try row.text("change_set").utf8))
        } catch {
            throw StoredJSON.corrupt("change \(id) has an unreadable change set: \(error)")
        }
        let conflicts = try StoredJSON.strings(try row.text("conflicts"), column: "changes.conflicts")
        self.id = id
        environment = try row.text("environment")
        self.kind = kind
        self.changeSet = changeSet
        baseVersion = try row.int("base_version")
        author = try row.text("author")
        message = try row.text("message")
        createdAtMilliseconds = try row.int64("created_at")
        applyAtMilliseconds = try row.optionalInt64("apply_at")
        expiresAtMilliseconds = try row.optionalInt64("expires_at")
        needsApproval = try row.bool("needs_approval")
        touchedFlags = try StoredJSON.strings(try row.text("touched_flags"), column: "changes.touched_flags")
        protectedFlags = try StoredJSON.strings(try row.text("protected_flags"), column: "changes.protected_flags")
        self.status = status
        approvedBy = try row.optionalText("approved_by")
        decidedBy = try row.optionalText("decided_by")
        decidedAtMilliseconds = try row.optionalInt64("decided_at")
        decisionMessage = try row.optionalText("decision_message")
        appliedAtMilliseconds = try row.optionalInt64("applied_at")
        appliedVersion = try row.optionalInt("applied_version")
        self.conflicts = try conflicts.map { pointer in
            guard let item = ChangeSet.Item(pointer: pointer) else {
                throw StoredJSON.corrupt("change \(id) lists the conflict \(pointer), which names no flag or cohort")
            }
            return item
        }
        reason = try row.optionalText("reason")
        details = try row.optionalText("details").map { try StoredJSON.value($0, column: "changes.details") }
        heldByGuard = try row.optionalInt64("held_by_guard")
    }

    /// Whether it is a change request (it needed a second person), as `GET .../requests` lists them.
    public var isRequest: Bool { needsApproval }

    /// The API's form (`docs/governance.md`, "The JSON form"): times as RFC 3339 UTC with milliseconds, absent
    /// values as `null`, `changes` the change set, `conflicts` the items' JSON pointers.
    public var jsonValue: JSONValue {
        func time(_ milliseconds: Int64?) -> JSONValue { milliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "id": .integer(id), "environment": .string(environment), "kind": .string(kind.rawValue),
            "status": .string(status.rawValue), "author": .string(author), "message": .string(message),
            "createdAt": time(createdAtMilliseconds), "baseVersion": .integer(Int64(baseVersion)),
            "applyAt": time(applyAtMilliseconds), "expiresAt": time(expiresAtMilliseconds),
            "changes": changeSet.jsonValue, "touchedFlags": .array(touchedFlags.map(JSONValue.string)),
            "protectedFlags": .array(protectedFlags.map(JSONValue.string)), "needsApproval": .bool(needsApproval),
            "approvedBy": text(approvedBy), "decidedBy": text(decidedBy), "decidedAt": time(decidedAtMilliseconds),
            "decisionMessage": text(decisionMessage), "appliedAt": time(appliedAtMilliseconds),
            "appliedVersion": appliedVersion.map { .integer(Int64($0)) } ?? .null,
            "conflicts": .array(conflicts.map { .string($0.pointer) }), "reason": text(reason),
            "details": details ?? .null, "heldByGuard": heldByGuard.map(JSONValue.integer) ?? .null,
        ])
    }
}
