/// One line to append to the audit log (`appendAudit`, `publish(batch:audit:)`): who tried what, where, and
/// how it ended. Read back as an `AuditEntry`.
///
/// Refusals carry what a client sent (a flag key in a URL, an address), so every text is cut to a bound on a
/// UTF-8 boundary when written: a hostile client cannot grow a row beyond a few kilobytes.
public struct AuditRecord: Sendable, Equatable {
    /// When it happened, milliseconds since 1970 UTC; nil: when it is written. A refusal flushed with the
    /// writer's next commit passes the time it was refused.
    public var atMilliseconds: Int64?
    /// The token's name; `-` when no valid token was sent.
    public var actor: String
    /// `publish`, `change.approve`, `token.create`, ... (`docs/governance.md`, "Audit").
    public var action: String
    /// The environment concerned, when there is one.
    public var environment: String?
    /// What was acted on: a flag key, a change id, a token name, a webhook id.
    public var target: String?
    /// `ok`, `refused` or `failed`.
    public var outcome: AuditOutcome
    /// The HTTP status of a refusal or failure.
    public var status: Int?
    /// Why it was refused or failed, in words (or an error code).
    public var reason: String?
    /// The client's address.
    public var client: String?
    /// The version a publish created.
    public var version: Int?
    /// Anything else worth keeping, free text (may be empty).
    public var detail: String

    /// An audit line; `outcome` defaults to `ok`.
    public init(actor: String, action: String, environment: String? = nil, target: String? = nil,
                outcome: AuditOutcome = .ok, status: Int? = nil, reason: String? = nil, client: String? = nil,
                version: Int? = nil, detail: String = "", atMilliseconds: Int64? = nil) {
        self.atMilliseconds = atMilliseconds
        self.actor = actor
        self.action = action
        self.environment = environment
        self.target = target
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.client = client
        self.version = version
        self.detail = detail
    }

    /// The record with every text cut to the bound it is stored with: for a caller that holds refusals in memory
    /// before writing them (the writer's pending lines), so each costs at most a few kilobytes there too.
    public func bounded() -> AuditRecord {
        var copy = self
        copy.actor = Self.truncated(actor, to: Self.maximumShortBytes)
        copy.action = Self.truncated(action, to: Self.maximumShortBytes)
        copy.environment = environment.map { Self.truncated($0, to: Self.maximumShortBytes) }
        copy.client = client.map { Self.truncated($0, to: Self.maximumShortBytes) }
        copy.target = target.map { Self.truncated($0, to: Self.maximumTargetBytes) }
        copy.reason = reason.map { Self.truncated($0, to: Self.maximumReasonBytes) }
        copy.detail = Self.truncated(detail, to: Self.maximumDetailBytes)
        return copy
    }

    /// Bounds on stored text, in UTF-8 bytes.
    static let maximumShortBytes = 200
    static let maximumTargetBytes = 512
    static let maximumReasonBytes = 2000
    static let maximumDetailBytes = 20_000

    /// `text` cut to at most `limit` UTF-8 bytes without splitting a character.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// How an audited attempt ended.
public enum AuditOutcome: String, Sendable, CaseIterable {
    /// It happened.
    case ok
    /// It was refused (authentication, authorization, validation, a precondition, a conflict).
    case refused
    /// It was accepted but could not be carried out (a change whose merged document no longer validates,
    /// a commit that failed).
    case failed
}
