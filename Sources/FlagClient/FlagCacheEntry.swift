import Foundation

/// One environment's cached flag document: the raw bytes as the server sent them, and what we knew about them.
///
/// The bytes are stored unparsed so that the cache never depends on the document model's version; the client
/// validates them with FlagKit after loading, exactly as it validates a fresh download.
public struct FlagCacheEntry: Sendable, Equatable {
    /// The environment the document belongs to (`production`, `staging`); also names the cache file.
    public var environment: String
    /// The `ETag` of the response the document came in, for `If-None-Match` on the next refresh.
    public var etag: String?
    /// The document's version number on the server, when known.
    public var version: Int?
    /// When the document was fetched (or last confirmed by a `304`). Stored with millisecond precision.
    public var fetchedAt: Date
    /// The document bytes exactly as received.
    public var document: Data

    /// Creates an entry.
    public init(environment: String, etag: String?, version: Int?, fetchedAt: Date, document: Data) {
        self.environment = environment
        self.etag = etag
        self.version = version
        self.fetchedAt = fetchedAt
        self.document = document
    }
}

/// What ``FlagCache/load(environment:)`` found.
public enum FlagCacheLoadResult: Sendable, Equatable {
    /// A complete, intact cache file for the environment.
    case loaded(FlagCacheEntry)
    /// No cache file yet (first launch, or removed).
    case absent
    /// A file is there but cannot be trusted; it is ignored and will be replaced by the next good fetch.
    case rejected(FlagCacheRejection)

    /// The entry when one was loaded, otherwise `nil`.
    public var entry: FlagCacheEntry? {
        if case .loaded(let entry) = self { return entry }
        return nil
    }

    /// Why the file was ignored, when it was.
    public var rejection: FlagCacheRejection? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }
}

/// Why a cache file was ignored. For diagnostics only: every case means "use safe defaults or the network".
public enum FlagCacheRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment name cannot name a file (empty, too long, a `/`, a leading `.`, ...).
    case invalidEnvironment(String)
    /// A directory or other non-regular file sits where the cache file should be.
    case notARegularFile
    /// The file could not be opened or read (`errno`).
    case unreadable(call: String, errno: Int32)
    /// The file is empty (e.g. a crash of another writer that did not use rename).
    case empty
    /// The file is larger than the cache's limit.
    case tooLarge(size: Int, limit: Int)
    /// The file does not start with the cache's magic: not ours.
    case notACacheFile
    /// A cache file of a format version this build does not read.
    case unsupportedFormat(String)
    /// The header line is damaged.
    case corruptHeader(String)
    /// Fewer bytes than the header announces.
    case truncated(expected: Int, actual: Int)
    /// More bytes than the header announces.
    case trailingBytes(expected: Int, actual: Int)
    /// The checksum over metadata and document does not match: a flipped or overwritten byte.
    case checksumMismatch(expected: UInt64, actual: UInt64)
    /// The metadata passed the checksum but does not decode (a writer bug).
    case invalidMetadata(String)
    /// A valid cache file, but of another environment (copied or renamed).
    case environmentMismatch(expected: String, found: String)

    /// One line for logs.
    public var description: String {
        switch self {
        case .invalidEnvironment(let name): "invalid environment name \(name.debugDescription)"
        case .notARegularFile: "not a regular file"
        case .unreadable(let call, let code): "\(call) failed: \(POSIXFile.describe(code)) (errno \(code))"
        case .empty: "empty file"
        case .tooLarge(let size, let limit): "file of \(size) bytes exceeds limit \(limit)"
        case .notACacheFile: "not a flag cache file (magic missing)"
        case .unsupportedFormat(let version): "unsupported cache format \(version.debugDescription)"
        case .corruptHeader(let detail): "corrupt header: \(detail)"
        case .truncated(let expected, let actual): "truncated: \(actual) of \(expected) bytes"
        case .trailingBytes(let expected, let actual): "\(actual) bytes where \(expected) were written"
        case .checksumMismatch(let expected, let actual):
            "checksum mismatch: header says \(String(expected, radix: 16)), content gives \(String(actual, radix: 16))"
        case .invalidMetadata(let detail): "invalid metadata: \(detail)"
        case .environmentMismatch(let expected, let found): "file is for environment \(found.debugDescription), not \(expected.debugDescription)"
        }
    }
}

/// Why ``FlagCache/store(_:)`` or ``FlagCache/remove(environment:)`` failed. The previous cache file is untouched.
public struct FlagCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that failed (`open`, `write`, `fsync`, `rename`, `mkdir`, `validate`, ...).
    public var operation: String
    /// The path involved.
    public var path: String
    /// `errno` of the failed system call, when one failed.
    public var errno: Int32?
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(operation: String, path: String, errno: Int32?, message: String) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.message = message
    }

    /// For example `rename /tmp/c/production.flagcache: Is a directory (errno 21)`.
    public var description: String {
        "\(operation) \(path): \(message)" + (errno.map { " (errno \($0))" } ?? "")
    }
}
