import FlagKit
import Foundation

/// Where the client's current values came from, for diagnostics screens and logs.
public enum ValueSource: Sendable, Equatable, CustomStringConvertible {
    /// A document received from the server in this run (a `200`), or confirmed by it (a `304`) at `fetchedAt`.
    case server(version: Int, fetchedAt: Date)
    /// The last good document from the disk cache, fetched or last confirmed at `writtenAt` (in an earlier run).
    case cache(version: Int, writtenAt: Date)
    /// The app's compiled-in safe defaults (``FlagClientConfiguration/safeDefaults``, else each lookup's default): no
    /// valid document was ever received, or the cache was unusable.
    case safeDefaults

    /// The document version, when the values come from a document.
    public var version: Int? {
        switch self {
        case .server(let version, _), .cache(let version, _): version
        case .safeDefaults: nil
        }
    }

    /// For example `server version 12 fetched 2026-11-29T15:30:00.000Z`.
    public var description: String {
        switch self {
        case .server(let version, let date): "server version \(version) fetched \(Self.format(date))"
        case .cache(let version, let date): "cache version \(version) written \(Self.format(date))"
        case .safeDefaults: "compiled-in safe defaults"
        }
    }

    /// RFC 3339 UTC with milliseconds, FlagKit's one formatter (what the server writes as `publishedAt`).
    private static func format(_ date: Date) -> String {
        RFC3339.string(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
