/// Every failure of the versioned store, keeping its cause.
///
/// The HTTP service maps these to statuses: `unknownEnvironment`/`versionNotFound`/`changeNotFound`/
/// `webhookNotFound`/`guardNotFound` 404, `versionConflict` 412,
/// `busy` 503, input refusals 400/422, the rest 500.
public enum FlagStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database's directory could not be created (a path component is a file, no permission, ...).
    case cannotCreateDirectory(path: String, reason: String)
    /// The store could not be opened: SQLite could not open or prepare the file (a directory, no permission, a
    /// read-only location), or PostgreSQL could not be reached or refused the connection (`location` masks a password).
    case cannotOpen(location: String, cause: DatabaseError)
    /// The file exists but is not a SQLite database, or is corrupted (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    case notADatabase(path: String, cause: DatabaseError)
    /// `PRAGMA journal_mode=WAL` answered another mode; durability and concurrent reads depend on WAL.
    case walUnavailable(path: String, journalMode: String)
    /// The database was migrated by a newer build than this one understands.
    case schemaTooNew(location: String, found: Int, supported: Int)
    /// No environment of this name; `known` lists the ones that exist.
    case unknownEnvironment(String, known: [String])
    /// An environment name outside `[a-z0-9][a-z0-9-]{0,62}`.
    case invalidEnvironmentName(String)
    /// An environment of this name exists already.
    case environmentExists(String)
    /// `publish` was told to expect `expected` as the current version but found `current` (0: none yet).
    case versionConflict(environment: String, expected: Int, current: Int)
    /// No version `number` in `environment`.
    case versionNotFound(environment: String, number: Int)
    /// Refused input to a store call: which argument, and why.
    case invalidArgument(name: String, reason: String)
    /// A token name outside `[A-Za-z0-9._-]{1,64}`.
    case invalidTokenName(String)
    /// An active token already has this name.
    case tokenNameTaken(String)
    /// No active token has this name.
    case tokenNotFound(String)
    /// `backup(to:)` refuses to overwrite an existing file.
    case backupDestinationExists(path: String)
    /// The stored document of a version does not hash to its stored `contentHash`: the bytes were changed
    /// on disk (or in the database) after the publish. Such a version is never served or republished.
    case damagedVersion(environment: String, number: Int, storedHash: String, actualHash: String)
    /// No change has this id.
    case changeNotFound(id: Int64)
    /// No webhook has this id (or it was deleted, for calls that need an active one).
    case webhookNotFound(id: Int64)
    /// No guard has this id.
    case guardNotFound(id: Int64)
    /// No webhook delivery has this id.
    case webhookDeliveryNotFound(id: Int64)
    /// Another connection held the write lock for longer than the busy timeout.
    case busy(cause: DatabaseError)
    /// PostgreSQL cannot be reached or cannot take writes now (connection lost, server shutting down, a standby
    /// after a failover): the service answers 503 `database_unavailable`, reads go on from memory.
    case unavailable(cause: DatabaseError)
    /// The operation exists for one engine only: what it was, and what to use on this one instead.
    case notSupported(operation: String, instead: String)
    /// `copy(toPostgres:actor:)` found data in the target (`holds`: rows by table); nothing was written.
    case copyTargetNotEmpty(target: String, holds: String)
    /// `copy(toPostgres:actor:)` refuses a source that fails `integrity_check` or holds a damaged version
    /// (`problems`, the first few); nothing was written.
    case copySourceDamaged(source: String, problems: [String])
    /// `copy(toPostgres:actor:)` stopped because the two databases disagree: a table or column on one side only,
    /// a value PostgreSQL cannot store as it is, or a row that read back differently. The target's transaction
    /// was rolled back.
    case copyMismatch(String)
    /// Any other database failure.
    case database(DatabaseError)

    /// A sentence for logs and CLI output.
    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let reason):
            return "cannot create the directory for database \(path): \(reason)"
        case .cannotOpen(let location, let cause):
            return "cannot open database \(location): \(cause)"
        case .notADatabase(let path, let cause):
            return "\(path) is not a usable SQLite database (corrupted or another kind of file): \(cause)"
        case .walUnavailable(let path, let mode):
            return "database \(path) cannot use WAL journaling (SQLite kept journal_mode=\(mode))"
        case .schemaTooNew(let location, let found, let supported):
            return "database \(location) has schema version \(found); this build supports up to \(supported)"
        case .unknownEnvironment(let name, let known):
            return "unknown environment '\(name)'; known: \(known.joined(separator: ", "))"
        case .invalidEnvironmentName(let name):
            return "invalid environment name '\(name)': use lowercase letters, digits and '-', at most 63"
        case .environmentExists(let name):
            return "environment '\(name)' exists already"
        case .versionConflict(let environment, let expected, let current):
            return "\(environment): expected current version \(expected), but it is \(current)"
        case .versionNotFound(let environment, let number):
            return "\(environment) has no version \(number)"
        case .invalidArgument(let name, let reason):
            return "invalid \(name): \(reason)"
        case .invalidTokenName(let name):
            return "invalid token name '\(name)': use letters, digits, '.', '_' and '-', at most 64"
        case .tokenNameTaken(let name):
            return "an active token named '\(name)' exists already"
        case .tokenNotFound(let name):
            return "no active token named '\(name)'"
        case .backupDestinationExists(let path):
            return "backup destination \(path) exists already; choose a new file"
        case .damagedVersion(let environment, let number, let stored, let actual):
            return "version \(number) of \(environment) is damaged: its stored document hashes to \(actual.prefix(16))..., "
                + "not to its contentHash \(stored.prefix(16))... (the bytes changed after the publish); it is not served"
        case .changeNotFound(let id):
            return "no change \(id)"
        case .webhookNotFound(let id):
            return "no webhook \(id)"
        case .guardNotFound(let id):
            return "no guard \(id)"
        case .webhookDeliveryNotFound(let id):
            return "no webhook delivery \(id)"
        case .busy(let cause):
            return "database is busy (another writer held the lock past the timeout): \(cause)"
        case .unavailable(let cause):
            return "the database is unavailable: \(cause)"
        case .notSupported(let operation, let instead):
            return "\(operation) is not supported by this database engine; \(instead)"
        case .copyTargetNotEmpty(let target, let holds):
            return "refusing to copy: the PostgreSQL database \(target) is not empty (it holds \(holds)); copy needs an empty "
                + "database (createdb a new one) and wrote nothing"
        case .copySourceDamaged(let source, let problems):
            let more = problems.count > 1 ? " (and \(problems.count - 1) more problem\(problems.count > 2 ? "s" : ""))" : ""
            return "refusing to copy \(source): \(problems.first ?? "damaged")\(more); nothing was written (see flagserver check)"
        case .copyMismatch(let reason):
            return "copy stopped, nothing was written (the PostgreSQL transaction was rolled back): \(reason)"
        case .database(let cause):
            return cause.description
        }
    }

    /// Wraps a wrapper-level error, keeping busy apart so the service can answer 503.
    static func wrap(_ error: any Error) -> FlagStoreError {
        if let error = error as? FlagStoreError { return error }
        if let error = error as? DatabaseError {
            if error.isBusy { return .busy(cause: error) }
            if error.isUnavailable { return .unavailable(cause: error) }
            return .database(error)
        }
        return .database(DatabaseError(extendedResultCode: 1, message: "\(error)", sql: nil))
    }
}
