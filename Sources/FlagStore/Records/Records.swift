import Foundation

/// One published version of one environment's document. Immutable once written.
public struct VersionRecord: Sendable, Equatable {
    /// The environment's name (`production`, `staging`, ...).
    public let environment: String
    /// 1, 2, 3, ... per environment, without gaps.
    public let number: Int
    /// The canonical document bytes exactly as published.
    public let document: [UInt8]
    /// SHA-256 of `document`, 64 lowercase hex digits; the basis for ETags.
    public let contentHash: String
    /// Who published (the token's name, or an admin command's actor).
    public let author: String
    /// When the commit happened, milliseconds since 1970-01-01T00:00:00Z.
    public let createdAtMilliseconds: Int64
    /// The publisher's message; may be empty.
    public let message: String
    /// For a rollback: the version whose content this one republished.
    public let rolledBackFrom: Int?
    /// The database's epoch when this was read (ms since 1970 when the line of versions began; a restore starts
    /// a larger one). Version numbers compare only within one epoch; a larger epoch is newer whatever its numbers.
    public let epoch: Int64

    /// `createdAtMilliseconds` as a `Date`.
    public var createdAt: Date { Date(timeIntervalSince1970: Double(createdAtMilliseconds) / 1000) }

    /// A record as read from the store.
    public init(environment: String, number: Int, document: [UInt8], contentHash: String, author: String,
                createdAtMilliseconds: Int64, message: String, rolledBackFrom: Int?, epoch: Int64 = 0) {
        self.environment = environment
        self.number = number
        self.document = document
        self.contentHash = contentHash
        self.author = author
        self.createdAtMilliseconds = createdAtMilliseconds
        self.message = message
        self.rolledBackFrom = rolledBackFrom
        self.epoch = epoch
    }
}

/// One publish in a `publish(batch:)` call; the fields mean what `publish`'s parameters mean.
public struct PublishRequest: Sendable, Equatable {
    /// The environment's name.
    public var environment: String
    /// Canonical document bytes.
    public var document: [UInt8]
    /// Who publishes (the token's name).
    public var author: String
    /// Why; may be empty.
    public var message: String
    /// The version the publisher saw (0: none yet), or nil to skip the check.
    public var expectedCurrentVersion: Int?
    /// The content hash of the version the publisher saw, or nil to skip this check: with `expectedCurrentVersion`
    /// it names the exact version a document was built on. A writer that chains several requests of one environment
    /// in one batch needs it: when the first finds another node's version where it expected its own base, the number
    /// the second expects may be that other version's, and only the hash tells them apart.
    public var expectedCurrentHash: String?
    /// What the `publish` audit line names as acted on (the flag key of a flip); nil for a whole document.
    public var target: String?
    /// The client's address, for the audit line.
    public var client: String?
    /// Built on the document of the previous request of the same environment in the same batch. When that one is
    /// refused with `versionConflict`, this one is refused too, whatever its own expectation says: another node may
    /// have published exactly the refused request's content, and this request, published on it, would be
    /// overwritten when the writer takes the refused one again on the newest version.
    public var chainedOnPrevious: Bool

    /// A request; see `FlagStore.publish(environment:document:author:message:expectedCurrentVersion:)`.
    public init(environment: String, document: [UInt8], author: String, message: String = "",
                expectedCurrentVersion: Int? = nil, expectedCurrentHash: String? = nil, target: String? = nil,
                client: String? = nil, chainedOnPrevious: Bool = false) {
        self.chainedOnPrevious = chainedOnPrevious
        self.environment = environment
        self.document = document
        self.author = author
        self.message = message
        self.expectedCurrentVersion = expectedCurrentVersion
        self.expectedCurrentHash = expectedCurrentHash
        self.target = target
        self.client = client
    }
}

/// What `publish` did.
public enum PublishOutcome: Sendable, Equatable {
    /// A new version was committed durably.
    case published(VersionRecord)
    /// The content equals the current version's, so nothing was written; carries the current version.
    case unchanged(VersionRecord)

    /// The new version, or the unchanged current one.
    public var record: VersionRecord {
        switch self {
        case .published(let record), .unchanged(let record): return record
        }
    }
}

/// What a token may do. Each role includes the ones below it: admin ⊃ writer ⊃ reader.
public enum TokenRole: String, Sendable, CaseIterable, Comparable {
    /// Read documents and history.
    case reader
    /// Also publish, flip flags and roll back.
    case writer
    /// Also administer (tokens, backups).
    case admin

    private var rank: Int {
        switch self {
        case .reader: return 0
        case .writer: return 1
        case .admin: return 2
        }
    }

    /// Whether a token of this role may do what needs `required`.
    public func allows(_ required: TokenRole) -> Bool { self >= required }

    /// Orders by privilege.
    public static func < (lhs: TokenRole, rhs: TokenRole) -> Bool { lhs.rank < rhs.rank }
}

/// A token's metadata. The secret itself is never stored, only its SHA-256.
public struct TokenRecord: Sendable, Equatable {
    /// Row id.
    public let id: Int64
    /// Unique among active tokens; recorded as the author of what the token publishes.
    public let name: String
    /// What the token may do.
    public let role: TokenRole
    /// Creation time, milliseconds since the epoch (UTC).
    public let createdAtMilliseconds: Int64
    /// Revocation time, or nil while active.
    public let revokedAtMilliseconds: Int64?
    /// The environments the token may act on; nil: every environment (also ones created later).
    public let environments: Set<String>?

    /// A record as read from the store.
    init(id: Int64, name: String, role: TokenRole, createdAtMilliseconds: Int64, revokedAtMilliseconds: Int64?,
         environments: Set<String>? = nil) {
        self.id = id
        self.name = name
        self.role = role
        self.createdAtMilliseconds = createdAtMilliseconds
        self.revokedAtMilliseconds = revokedAtMilliseconds
        self.environments = environments
    }

    /// Whether the token still authenticates.
    public var isActive: Bool { revokedAtMilliseconds == nil }

    /// Whether the token is limited to some environments (`--env`); an admin route that spans environments
    /// (audit, webhooks) needs an unscoped token.
    public var isScoped: Bool { environments != nil }

    /// Whether the token may act on `environment` (`403 environment_not_allowed` otherwise).
    public func allows(environment: String) -> Bool { environments?.contains(environment) ?? true }
}

/// One audit line as stored: who tried what, when, and how it ended (`AuditRecord` is what is appended).
public struct AuditEntry: Sendable, Equatable {
    /// Row id, increasing; the cursor of `AuditQuery.before`.
    public let id: Int64
    /// Milliseconds since the epoch (UTC).
    public let atMilliseconds: Int64
    /// Who: a token name, an admin command's actor, or `-` when no valid token was sent.
    public let actor: String
    /// What: `publish`, `token.create`, `change.approve`, ... (`docs/governance.md`, "Audit").
    public let action: String
    /// The environment concerned, when there is one.
    public let environment: String?
    /// Details, e.g. `version 7 sha256 ab12...` or `role writer`.
    public let detail: String
    /// `ok` for what happened (and for every line written before migration 3), `refused` or `failed`.
    public let outcome: AuditOutcome
    /// The HTTP status of a refusal or failure.
    public let status: Int?
    /// Why it was refused or failed.
    public let reason: String?
    /// The client's address.
    public let client: String?
    /// What was acted on: a flag key, a change id, a token name, a webhook id.
    public let target: String?
    /// The version a publish created.
    public let version: Int?
}

/// Milliseconds since the epoch, UTC, now.
func currentMilliseconds() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
}
