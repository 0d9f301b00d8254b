import FlagKit

/// A change to record (`FlagStore.createChange`): a schedule, a change request, or both.
///
/// The service computes the parts with FlagKit: `ChangeSet(base:proposed:)`, its `touchedFlags`, the policy's
/// `protectedFlags(in:)`, and `expiresAt` from the policy's request lifetime.
public struct NewChange: Sendable, Equatable {
    /// The environment it changes.
    public var environment: String
    /// What it was made from.
    public var kind: ChangeKind
    /// What it sets; must not be empty (`409 empty_change` is the service's to send first).
    public var changeSet: ChangeSet
    /// The version the author reviewed it against (`If-Match`, else the current one; 0: none yet).
    public var baseVersion: Int
    /// The token's name; becomes the author of the version it publishes.
    public var author: String
    /// Why; becomes the message of the version it publishes.
    public var message: String
    /// When to publish it (milliseconds since 1970 UTC); nil: at approval.
    public var applyAtMilliseconds: Int64?
    /// When a pending request expires; nil for a change that needs no approval.
    public var expiresAtMilliseconds: Int64?
    /// It touches a protected flag: a second person must approve it first.
    public var needsApproval: Bool
    /// `ChangeSet.touchedFlags(base:proposed:)`.
    public var touchedFlags: [String]
    /// The protected flags among them (`EnvironmentPolicy.protectedFlags(in:)`).
    public var protectedFlags: [String]
    /// The client's address, for the audit line.
    public var client: String?

    /// A change; see each property.
    public init(environment: String, kind: ChangeKind, changeSet: ChangeSet, baseVersion: Int, author: String,
                message: String, applyAtMilliseconds: Int64? = nil, expiresAtMilliseconds: Int64? = nil,
                needsApproval: Bool, touchedFlags: [String], protectedFlags: [String] = [], client: String? = nil) {
        self.environment = environment
        self.kind = kind
        self.changeSet = changeSet
        self.baseVersion = baseVersion
        self.author = author
        self.message = message
        self.applyAtMilliseconds = applyAtMilliseconds
        self.expiresAtMilliseconds = expiresAtMilliseconds
        self.needsApproval = needsApproval
        self.touchedFlags = touchedFlags
        self.protectedFlags = protectedFlags
        self.client = client
    }

    /// The status it starts in: `pending` when it needs approval, otherwise `scheduled`.
    public var initialStatus: ChangeStatus { needsApproval ? .pending : .scheduled }
}
