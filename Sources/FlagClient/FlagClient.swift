// Re-exported: the app configures its transport (`TransportOptions`, `TransportKind`) with `import FlagClient` alone.
@_exported import ClientHTTP
import FlagKit
import Foundation

/// What an app links to read its flags: values at once from the disk cache or the app's compiled-in safe defaults,
/// then `refresh()` in the background, evaluated locally with FlagKit (the same code and bucketing as the server).
///
/// ```swift
/// let flags = FlagClient(configuration: FlagClientConfiguration(environment: "production", baseURL: server,
///                                                               cacheDirectory: applicationSupport, app: app,
///                                                               safeDefaults: compiledInDefaults))
/// if flags.bool("showBanner", default: false) { ... }     // at once, no network
/// Task { await flags.refresh() }                           // later values arrive through `updates()`
/// ```
///
/// Thread-safe: every read takes the current immutable ``FlagSnapshot`` under a lock held only to copy a
/// reference, so reads are cheap from any thread or task and never wait on the network or the disk.
/// No failure (server down, timeout, 4xx/5xx, garbage, truncated or oversized body, an invalid or older document,
/// a corrupted cache) changes the values; only a valid document does.
public final class FlagClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: FlagClientConfiguration
    /// What the launch found: the install id and the cache file's state.
    public let launchReport: LaunchReport
    /// The transport used by `refresh()`: the configuration's ``FlagClientConfiguration/transport`` unless another was given.
    let transport: any HTTPTransport
    /// The disk cache in ``FlagClientConfiguration/cacheDirectory``.
    let cache: FlagCache
    /// Everything that changes, behind one lock.
    let state: Locked<State>

    /// The mutable part of the client.
    struct State {
        /// The values in use.
        var snapshot: FlagSnapshot
        /// The cache entry behind `snapshot` (its ETag and version); `nil` while the safe defaults are in use.
        var entry: FlagCacheEntry?
        /// Minimum interval, backoff and `Retry-After` bookkeeping.
        var schedule: RefreshSchedule
        /// The fetch in progress; concurrent `refresh()` calls join it rather than fetch twice.
        var inFlight: Task<RefreshOutcome, Never>?
        /// Change observers by registration id.
        var observers: [UInt64: @Sendable (FlagSnapshot) -> Void] = [:]
        /// The next registration id.
        var nextObserverID: UInt64 = 0
        /// The event-stream listener while listening (`FlagClient+Listening.swift`).
        var listener: Task<Void, Never>?
        /// A pending close of the listener after the inactivity delay.
        var listenerStop: Task<Void, Never>?
        /// A refresh the listener scheduled; events arriving meanwhile join it.
        var eventRefreshPending = false
    }

    /// Creates the client and makes its values available at once, without the network: the install id from (or
    /// newly written to) the cache directory, then the cached document if it is intact and valid, otherwise the
    /// configuration's ``FlagClientConfiguration/safeDefaults``. Never throws and never blocks on anything but reading
    /// two small files.
    ///
    /// `transport` replaces the configured one (URLSession on Apple platforms, libcurl on Linux) where needed.
    public init(configuration: FlagClientConfiguration, transport: (any HTTPTransport)? = nil) {
        self.configuration = configuration
        self.transport = transport ?? configuration.transport.makeTransport(options: configuration.transportOptions)
        cache = FlagCache(directory: configuration.cacheDirectory)
        let identity = configuration.installId.map { InstallIdentity(id: $0, origin: .configured) }
            ?? InstallIdentity.loadOrCreate(in: configuration.cacheDirectory)
        let context = configuration.app.evaluationContext(installId: identity.id)
        let (cacheState, entry, envelope) = Self.loadCache(cache, environment: configuration.environment)
        let snapshot: FlagSnapshot
        if let entry, let envelope {
            snapshot = FlagSnapshot(envelope: envelope, safeDefaults: configuration.safeDefaults,
                                    source: .cache(version: envelope.version, writtenAt: entry.fetchedAt), context: context)
        } else {
            snapshot = FlagSnapshot(envelope: nil, safeDefaults: configuration.safeDefaults, source: .safeDefaults,
                                    context: context)
        }
        launchReport = LaunchReport(installIdentity: identity, cache: cacheState)
        state = Locked(State(snapshot: snapshot, entry: entry, schedule: RefreshSchedule(policy: configuration.refreshPolicy)))
    }

    /// Loads and validates the cached envelope; anything short of a valid document of this environment is reported
    /// and ignored.
    static func loadCache(_ cache: FlagCache, environment: String)
        -> (CacheLaunchState, FlagCacheEntry?, FlagEnvelope?) {
        let entry: FlagCacheEntry
        switch cache.load(environment: environment) {
        case .absent: return (.absent, nil, nil)
        case .rejected(let reason): return (.rejected(reason), nil, nil)
        case .loaded(let loaded): entry = loaded
        }
        let envelope: FlagEnvelope
        do {
            envelope = try FlagEnvelope.decode(entry.document)
        } catch {
            return (.invalidContent(error), nil, nil)
        }
        guard envelope.environment == environment else {
            return (.inconsistent("document is for environment \(envelope.environment.debugDescription)"), nil, nil)
        }
        if let version = entry.version, version != envelope.version {
            return (.inconsistent("metadata says version \(version), document is version \(envelope.version)"), nil, nil)
        }
        return (.loaded(version: envelope.version), entry, envelope)
    }

    /// The current values: one consistent snapshot. Keep it for a screen that must not change halfway through.
    public var snapshot: FlagSnapshot { state.withLock { $0.snapshot } }

    /// Where the current values came from (server version N, cache written at T, safe defaults).
    public var source: ValueSource { snapshot.source }

    /// The install id used as the targeting key.
    public var installId: String { launchReport.installIdentity.id }

    /// Evaluates the current document again for new app attributes (the user changed the language) and notifies
    /// observers. The install id stays.
    public func updateApp(_ app: AppContext) {
        let context = app.evaluationContext(installId: installId)
        let snapshot = state.withLock { state -> FlagSnapshot? in
            guard state.snapshot.context != context else { return nil }
            state.snapshot = state.snapshot.evaluated(for: context)
            return state.snapshot
        }
        if let snapshot { notify(snapshot) }
    }
}
