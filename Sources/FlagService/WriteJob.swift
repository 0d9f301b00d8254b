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
    /// The client's address, for the `publish` audit line.
    public let client: String?
    /// Called once, on the writer thread, after the commit is durable and the new snapshot is installed.
    public let completion: @Sendable (WriteOutcome) -> Void

    /// A job.
    public init(environment: String, kind: Kind, precondition: Precondition, author: String, message: String,
                client: String? = nil, completion: @escaping @Sendable (WriteOutcome) -> Void) {
        self.environment = environment
        self.kind = kind
        self.precondition = precondition
        self.author = author
        self.message = message
        self.client = client
        self.completion = completion
    }
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
}
