import FlagKit

/// What the client found on disk when it was created, for diagnostics (a settings screen, a log line at launch).
public struct LaunchReport: Sendable, Equatable {
    /// The install id and how it was obtained.
    public let installIdentity: InstallIdentity
    /// What became of the cache file.
    public let cache: CacheLaunchState

    /// Creates a report.
    public init(installIdentity: InstallIdentity, cache: CacheLaunchState) {
        self.installIdentity = installIdentity
        self.cache = cache
    }
}

/// What the cache file gave at launch. Every case but `loaded` means the client started from the safe defaults;
/// the file is left as it is and replaced by the next good fetch.
public enum CacheLaunchState: Sendable, Equatable {
    /// A valid document of this version was loaded.
    case loaded(version: Int)
    /// No cache file (first launch).
    case absent
    /// The file is damaged, truncated, foreign or unreadable (the cache's reason).
    case rejected(FlagCacheRejection)
    /// The file is intact but its content is not a valid envelope and document (written by an older, more lenient
    /// build, or a server that sent something FlagKit now refuses).
    case invalidContent(FlagEnvelopeError)
    /// The file is intact and valid but holds another environment's document, or its metadata disagrees with it.
    case inconsistent(String)
}
