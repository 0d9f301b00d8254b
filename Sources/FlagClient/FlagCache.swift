import Foundation

/// The on-disk cache of flag documents: one file per environment in a directory the app chooses
/// (e.g. Application Support), so the app has its last good values at launch without the network.
///
/// Loading never throws and never crashes: a damaged, truncated or foreign file is reported and ignored.
/// Storing is atomic and durable (temporary file, `fsync`, `rename`, directory `fsync`): after a crash the
/// file is the old one or the new one, never a mix. Safe to use from several threads; concurrent stores of
/// one environment leave one complete winner.
public struct FlagCache: Sendable {
    /// The directory holding the cache files; created on first store.
    public let directory: URL
    /// The largest cache file read; larger ones are rejected without being read.
    public let maxFileBytes: Int

    /// Creates a cache in `directory`. `maxFileBytes` bounds what a load reads (default 16 MiB).
    public init(directory: URL, maxFileBytes: Int = 16 << 20) {
        self.directory = directory
        self.maxFileBytes = maxFileBytes
    }

    /// The file that holds `environment`'s document: `<directory>/<environment>.flagcache`.
    public func fileURL(for environment: String) -> URL {
        directory.appendingPathComponent(environment + ".flagcache", isDirectory: false)
    }

    /// Reads the cached document of `environment`, or says why there is none to trust.
    public func load(environment: String) -> FlagCacheLoadResult {
        guard Self.isValidEnvironment(environment) else { return .rejected(.invalidEnvironment(environment)) }
        switch POSIXFile.read(path: fileURL(for: environment).path, limit: maxFileBytes) {
        case .failure(.missing):
            return .absent
        case .failure(.notARegularFile):
            return .rejected(.notARegularFile)
        case .failure(.tooLarge(let size)):
            return .rejected(.tooLarge(size: size, limit: maxFileBytes))
        case .failure(.failed(let call, let code)):
            return .rejected(.unreadable(call: call, errno: code))
        case .success(let bytes):
            switch FlagCacheFormat.decode(bytes, environment: environment) {
            case .success(let entry): return .loaded(entry)
            case .failure(let rejection): return .rejected(rejection)
            }
        }
    }

    /// Atomically replaces the cached document of `entry.environment`.
    /// On failure the previous file (if any) is kept unchanged and no temporary file is left behind.
    public func store(_ entry: FlagCacheEntry) throws(FlagCacheError) {
        let target = fileURL(for: entry.environment)
        guard Self.isValidEnvironment(entry.environment) else {
            throw FlagCacheError(operation: "validate", path: target.path, errno: nil,
                                 message: "invalid environment name \(entry.environment.debugDescription)")
        }
        let bytes = FlagCacheFormat.encode(entry)
        guard bytes.count <= maxFileBytes else {
            throw FlagCacheError(operation: "validate", path: target.path, errno: nil,
                                 message: "cache file of \(bytes.count) bytes would exceed limit \(maxFileBytes)")
        }
        if let (call, code) = POSIXFile.makeDirectories(directory.path) {
            throw FlagCacheError(operation: call, path: directory.path, errno: code, message: POSIXFile.describe(code))
        }
        if let (call, code) = POSIXFile.replaceAtomically(directory: directory.path, name: target.lastPathComponent,
                                                          bytes: bytes) {
            throw FlagCacheError(operation: call, path: target.path, errno: code, message: POSIXFile.describe(code))
        }
    }

    /// Deletes the cached document of `environment`; a missing file is fine.
    public func remove(environment: String) throws(FlagCacheError) {
        let target = fileURL(for: environment)
        guard Self.isValidEnvironment(environment) else {
            throw FlagCacheError(operation: "validate", path: target.path, errno: nil,
                                 message: "invalid environment name \(environment.debugDescription)")
        }
        if let (call, code) = POSIXFile.remove(path: target.path) {
            throw FlagCacheError(operation: call, path: target.path, errno: code, message: POSIXFile.describe(code))
        }
    }

    /// An environment name must be usable as a file name on every platform: 1 to 64 of `A-Z a-z 0-9 . _ -`,
    /// not starting with `.` (no hidden files, no `..`).
    public static func isValidEnvironment(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), name.first != "." else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
