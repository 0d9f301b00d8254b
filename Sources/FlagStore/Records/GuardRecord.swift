import FlagKit

/// One guard as stored (docs/guards.md, "The service"). Times are milliseconds since 1970 UTC; `jsonValue` is the
/// API's form. The rule, the last decision and the action are kept as the JSON the service wrote.
public struct GuardRecord: Sendable, Equatable {
    /// The guard's id.
    public let id: Int64
    /// The environment whose version it watches.
    public let environment: String
    /// The change it rides on; nil for a guard on a published version.
    public let changeID: Int64?
    /// The watched version; nil while `waiting` (and when cancelled before its change was applied).
    public let version: Int?
    /// The version before the watched one: what a rollback restores (versions are numbered 1, 2, ... without gaps).
    public var previousVersion: Int? { version.flatMap { $0 > 1 ? $0 - 1 : nil } }
    /// Only this product's notifications; nil: every product.
    public let product: String?
    /// Whose notifications it reads (`Production`, `Sandbox`, ...).
    public let appStoreEnvironment: String
    /// The rule (`GuardRule`'s JSON).
    public let rule: JSONValue
    /// The token that made it.
    public let createdBy: String
    /// When it was made.
    public let createdAtMilliseconds: Int64
    /// When the watched version was published: the window's start.
    public let publishedAtMilliseconds: Int64?
    /// Where it is in its life.
    public let status: GuardStatus
    /// The last evaluation (`verdict`, the figures, `message`, `at`).
    public let lastDecision: JSONValue?
    /// When it was last evaluated (the jobs' clock).
    public let lastEvaluatedAtMilliseconds: Int64?
    /// The watched hours of the last audited decision: a `held` decision is audited when they change.
    public let lastAuditedHours: Int?
    /// When it tripped.
    public let trippedAtMilliseconds: Int64?
    /// What was done when it tripped (`kind`, `outcome`, `version`, `changes`, `reason`).
    public let action: JSONValue?
    /// Who overrode the trip.
    public let overriddenBy: String?
    /// When.
    public let overriddenAtMilliseconds: Int64?
    /// Why.
    public let overrideMessage: String?

    /// The columns `init(row:)` reads, for a query on `guards g JOIN environments e`.
    static let columns = ["id", "change_id", "version", "product", "appstore_environment", "rule",
                          "created_by", "created_at", "published_at", "status", "last_decision", "last_evaluated_at",
                          "last_audited_hours", "tripped_at", "action", "overridden_by", "overridden_at", "override_message"]
        .map { "g.\($0) AS \($0)" }.joined(separator: ", ") + ", e.name AS environment"

    /// Reads a row selected with `columns`; unreadable stored JSON is reported as corruption.
    init(row: Row) throws {
        let id = try row.int64("id")
        let statusText = try row.text("status")
        guard let status = GuardStatus(rawValue: statusText) else { throw StoredJSON.corrupt("guard \(id) has status \(statusText)") }
        self.id = id
        environment = try row.text("environment")
        changeID = try row.optionalInt64("change_id")
        version = try row.optionalInt("version")
        product = try row.optionalText("product")
        appStoreEnvironment = try row.text("appstore_environment")
        rule = try StoredJSON.value(try row.text("rule"), column: "guards.rule")
        createdBy = try row.text("created_by")
        createdAtMilliseconds = try row.int64("created_at")
        publishedAtMilliseconds = try row.optionalInt64("published_at")
        self.status = status
        lastDecision = try row.optionalText("last_decision").map { try StoredJSON.value($0, column: "guards.last_decision") }
        lastEvaluatedAtMilliseconds = try row.optionalInt64("last_evaluated_at")
        lastAuditedHours = try row.optionalInt("last_audited_hours")
        trippedAtMilliseconds = try row.optionalInt64("tripped_at")
        action = try row.optionalText("action").map { try StoredJSON.value($0, column: "guards.action") }
        overriddenBy = try row.optionalText("overridden_by")
        overriddenAtMilliseconds = try row.optionalInt64("overridden_at")
        overrideMessage = try row.optionalText("override_message")
    }

    /// The rule's `windowHours`, when it has one.
    public var windowHours: Int? { rule.objectValue?["windowHours"]?.integerValue.map { Int(clamping: $0) } }

    /// When the window ends: publication + `windowHours`; nil while waiting.
    public var windowEndsAtMilliseconds: Int64? {
        guard let published = publishedAtMilliseconds, let hours = windowHours else { return nil }
        let (end, overflow) = published.addingReportingOverflow(Int64(hours) * 3_600_000)
        return overflow ? .max : end
    }

    /// The API's form (docs/guards.md, "The service"): every member present, times RFC 3339 UTC with milliseconds,
    /// absent values `null`.
    public var jsonValue: JSONValue {
        func time(_ milliseconds: Int64?) -> JSONValue { milliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        return .object([
            "id": .integer(id), "environment": .string(environment), "status": .string(status.rawValue),
            "change": changeID.map(JSONValue.integer) ?? .null, "version": integer(version),
            "previousVersion": integer(previousVersion), "product": text(product),
            "appStoreEnvironment": .string(appStoreEnvironment), "rule": rule, "createdBy": .string(createdBy),
            "createdAt": time(createdAtMilliseconds), "publishedAt": time(publishedAtMilliseconds),
            "windowEndsAt": time(windowEndsAtMilliseconds), "lastDecision": lastDecision ?? .null,
            "trippedAt": time(trippedAtMilliseconds), "action": action ?? .null, "overriddenBy": text(overriddenBy),
            "overriddenAt": time(overriddenAtMilliseconds), "overrideMessage": text(overrideMessage),
        ])
    }
}
