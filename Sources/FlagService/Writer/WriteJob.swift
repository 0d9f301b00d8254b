import AppStoreNotifications
import FlagKit
import FlagStore

/// One write waiting for the writer thread.
public struct WriteJob: Sendable {
    /// What to write.
    public enum Kind: Sendable {
        /// Publish this whole document.
        case document(FlagDocument)
        /// Change one flag of the current document.
        case flag(key: String, edit: FlagEdit)
        /// Publish version `number`'s content again.
        case rollback(number: Int)
        /// Record a scheduled change (`POST .../schedules`): `edit` against the current version, published at
        /// `applyAt` (milliseconds since 1970 UTC) by the scheduler.
        case schedule(ScheduleEdit, applyAt: Int64)
        /// Publish change `id` now (its time came, or it was approved): conflicts are checked against the
        /// current version in queue order; the author and message are the change's.
        case applyChange(id: Int64)
        /// Store a verified App Store notification (`WriteJob(notification:)`): it belongs to no environment. The
        /// notification jobs the writer takes at once are stored in one transaction (`WriteQueue+Notifications.swift`).
        case notification(NotificationRecord)
    }

    /// The conditional-request header that guards the write (RFC 9110 §13.1).
    public enum Precondition: Sendable, Equatable {
        /// No condition.
        case none
        /// `If-Match` field values: the current ETag (strong comparison) or `*`.
        case ifMatch([String])
        /// `If-None-Match: *`: only when the environment has no version yet.
        case ifNoneMatchAny
    }

    /// The environment.
    public let environment: String
    /// What to write.
    public let kind: Kind
    /// Checked by the writer against the version it is about to change, in queue order.
    public let precondition: Precondition
    /// The token's name.
    public let author: String
    /// Why.
    public let message: String
    /// The client's address, for the audit line of a change the job records.
    public let client: String?
    /// Called once, on the writer thread, after the commit is durable and the new snapshot is installed.
    public let completion: @Sendable (WriteOutcome) -> Void
    /// The second person who already approved this write, so a protected flag it touches does not make it a change
    /// request again: a guard's rollback whose change the approver approved with the guard on it (docs/guards.md).
    public let approvedBy: String?

    /// A job.
    public init(environment: String, kind: Kind, precondition: Precondition, author: String, message: String,
                client: String? = nil, approvedBy: String? = nil, completion: @escaping @Sendable (WriteOutcome) -> Void) {
        self.environment = environment
        self.kind = kind
        self.precondition = precondition
        self.author = author
        self.message = message
        self.client = client
        self.approvedBy = approvedBy
        self.completion = completion
    }
}

extension WriteJob {
    /// A job that stores `record` durably, then tells `completion` whether it was new (`.notificationStored`) or
    /// why not (`.failed`).
    public init(notification record: NotificationRecord, completion: @escaping @Sendable (WriteOutcome) -> Void) {
        self.init(environment: "", kind: .notification(record), precondition: .none, author: "appstore",
                  message: record.notificationUUID, completion: completion)
    }

    /// Whether the job stores a notification (it goes with the other notifications, not with the publishes).
    var isNotification: Bool {
        if case .notification = kind { return true }
        return false
    }
}

/// What a schedule sets (`POST .../schedules`): flags as `PUT .../flags/{key}` takes them, or a whole document.
public enum ScheduleEdit: Sendable, Equatable {
    /// Flag key to its edit, applied to the current document in key order.
    case flags([String: FlagEdit])
    /// A whole document.
    case document(FlagDocument)
}

/// A version a write committed: what its answer reports.
public struct CommittedVersion: Sendable {
    /// The stored version.
    public let record: VersionRecord
    /// Its document.
    public let document: FlagDocument
    /// Its entity tag, as GET serves it.
    public let etag: String
    /// The version number.
    public var version: Int { record.number }

    init(record: VersionRecord, document: FlagDocument) {
        self.record = record
        self.document = document
        etag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash)
    }
}

/// What became of a `WriteJob`.
public enum WriteOutcome: Sendable {
    /// A new version was committed durably and is now served (or a newer one from the same group commit is).
    case published(CommittedVersion)
    /// The content was already current; nothing was written. Carries the current version.
    case unchanged(VersionRecord)
    /// Refused or failed; nothing was written.
    case failed(ServiceError)
    /// Nothing was published: a change was recorded instead, committed durably. A write touching a protected
    /// flag became a change request (`pending`), or a schedule was recorded (`scheduled`, or `pending` when it
    /// needs approval first).
    case recorded(RecordedChange)
    /// An `applyChange` job moved the change to `applied`, `conflicted` or `failed`: the change as it now is and
    /// the version it published, if it published one (nil also when the merged document was already current).
    case changeRan(ChangeRecord, published: CommittedVersion?)
    /// An `applyChange` job found the change no longer `scheduled` or `approved` (applied by an earlier job,
    /// cancelled): nothing was written. The change as it is.
    case changeSkipped(ChangeRecord)
    /// A `notification` job's record is durably stored: `true` when this job stored it, `false` when a record
    /// with its `notificationUUID` was there already (Apple sent it again, or another node stored it first).
    case notificationStored(Bool)
}

/// A change the writer recorded instead of publishing, with the documents its diff and impact compare.
public struct RecordedChange: Sendable {
    /// The change as stored.
    public let record: ChangeRecord
    /// The version it was made against.
    public let base: FlagDocument
    /// What it proposes (the change set applied to `base`).
    public let proposed: FlagDocument
}

extension WriteJob {
    /// A job that publishes `change` (made to happen by `actor`), telling `webhooks` what became of it, then
    /// calling `then` (on the writer thread): the scheduler's due changes and an approval's publish alike.
    static func applyChange(_ change: ChangeRecord, actor: String, webhooks: WebhookDispatcher,
                            then: @escaping @Sendable (WriteOutcome) -> Void) -> WriteJob {
        WriteJob(environment: change.environment, kind: .applyChange(id: change.id), precondition: .none, author: actor,
                 message: change.message) { outcome in
            if case .changeRan(let record, _) = outcome {
                switch record.status {
                case .applied: webhooks.submit("change.applied", change: record)
                case .conflicted: webhooks.submit("change.conflicted", change: record)
                case .failed: webhooks.submit("change.failed", change: record)
                default: break
                }
            }
            then(outcome)
        }
    }
}
