import FlagKit
import Foundation

/// Everything a ``FlagClient`` needs: which environment, where the server is, where to keep files, who this is.
public struct FlagClientConfiguration: Sendable {
    /// The environment whose document the app uses (`production`, `staging`); also names the cache file.
    public var environment: String
    /// The server's base URL (`https://flags.example.com`); the document is at `v1/environments/{env}/document` below it.
    public var baseURL: URL
    /// A directory the app owns for the cache file and the install id. On iOS use Application Support, not Caches:
    /// the OS may empty Caches, and a lost install id moves the install to another rollout bucket.
    public var cacheDirectory: URL
    /// The app's targeting attributes.
    public var app: AppContext
    /// An install id to use instead of the persisted one (tests, tools, a host app with its own id).
    public var installId: String?
    /// Which transport `refresh()` uses: URLSession on Apple platforms (iOS ships no libcurl), libcurl on Linux.
    /// Where both exist (Linux builds with libcurl) either can be chosen.
    public var transport: TransportKind
    /// Timeouts, body limit and trust for the transport. Keep the timeouts short: nothing waits on a refresh.
    public var transportOptions: TransportOptions
    /// Minimum interval, backoff and `Retry-After` limits.
    public var refreshPolicy: RefreshPolicy
    /// A read token sent as `Authorization: Bearer …` when the server requires one; `nil` sends none.
    public var readToken: String?
    /// The app's compiled-in safe defaults as a flag document, evaluated like a downloaded one whenever no valid
    /// document is at hand (first launch offline, a corrupted cache). Pass them so that these values, and not only
    /// each lookup's own default, apply then: they must unlock everything a good document could leave unlocked.
    /// `nil` leaves the snapshot empty until a document arrives, so every lookup gives its default.
    public var safeDefaults: FlagDocument?

    /// Creates a configuration with the package's defaults for transport and refresh policy.
    public init(environment: String, baseURL: URL, cacheDirectory: URL, app: AppContext = AppContext(),
                installId: String? = nil, transport: TransportKind = .platformDefault,
                transportOptions: TransportOptions = TransportOptions(),
                refreshPolicy: RefreshPolicy = RefreshPolicy(), readToken: String? = nil, safeDefaults: FlagDocument? = nil) {
        self.environment = environment
        self.baseURL = baseURL
        self.cacheDirectory = cacheDirectory
        self.app = app
        self.installId = installId
        self.transport = transport
        self.transportOptions = transportOptions
        self.refreshPolicy = refreshPolicy
        self.readToken = readToken
        self.safeDefaults = safeDefaults
    }

    /// `{baseURL}/v1/environments/{environment}/events`: the change notification stream `startListening()` follows.
    public var eventsURL: URL {
        documentURL.deletingLastPathComponent().appendingPathComponent("events", isDirectory: false)
    }

    /// `{baseURL}/v1/environments/{environment}/offer-signatures`: where ``FlagClient/offerSignature(product:offer:appAccountToken:)`` asks.
    public var offerSignaturesURL: URL {
        documentURL.deletingLastPathComponent().appendingPathComponent("offer-signatures", isDirectory: false)
    }

    /// `{baseURL}/v1/environments/{environment}/document`. The environment is checked to be a plain name
    /// (``FlagCache/isValidEnvironment(_:)``) before it is used in a path.
    public var documentURL: URL {
        baseURL.appendingPathComponent("v1", isDirectory: true).appendingPathComponent("environments", isDirectory: true)
            .appendingPathComponent(environment, isDirectory: true).appendingPathComponent("document", isDirectory: false)
    }
}
