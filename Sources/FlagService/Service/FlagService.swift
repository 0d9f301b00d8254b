import Dispatch
import FlagKit
import FlagStore
import HTTPServer
import ServerLock

/// The flag API (see `docs/api.md`) over a `FlagStore`: documents served from in-memory snapshots,
/// writes serialized on one writer thread and acknowledged after a durable commit.
///
/// ```swift
/// let service = try FlagService(store: store)
/// let server = HTTPServer(configuration: config, handler: try service.makeRouter())
/// service.attach(server)
/// let port = try server.start()
/// ...
/// server.shutdown(); service.shutdown()
/// ```
public final class FlagService: Sendable {
    /// What a deployment can change.
    public struct Options: Sendable {
        /// GETs need a reader token too (default: documents are public, like a CDN would serve them).
        public var requireReadToken: Bool = false
        /// A single-process store: how often the in-memory token table is reloaded from the store (reads with
        /// `requireReadToken`, and the head check that refuses unknown tokens before a body is read): a token created
        /// while the server runs (by `flagserver token create`) is accepted within this time. A shared store: unused;
        /// `ClusterNode`'s round reloads the table once every `clusterSyncInterval`, the one timer that reads the other
        /// nodes' tokens.
        public var tokenRefreshInterval: Duration = .seconds(2)
        /// Most writes in one group commit.
        public var maximumBatch: Int = 256
        /// OFREP: default environment and rate limit.
        public var ofrep = OFREPOptions()
        /// The ops console's files served at `/console` (nil: `/console` answers 404 "not installed").
        public var console: ConsoleAssets?
        /// Proxies whose `X-Forwarded-For`/`X-Real-IP` give the client address (for the failed-authentication
        /// throttle, its log lines and OFREP's rate limit); none by default: the TCP peer is the client.
        public var trustedProxies = HTTPTrustedProxies.none
        /// Failed authentications a client address may make per `authFailureWindow`; its further failures get 429
        /// (0: no limit). A valid token is always served.
        public var authFailureLimit = 10
        /// The window of `authFailureLimit`.
        public var authFailureWindow: Duration = .seconds(60)
        /// Webhook deliveries: backoff, attempts, timeout (`--webhook-retry-base-ms`).
        public var webhooks = WebhookDispatcher.Options()
        /// How many sampled installs the impact in a recorded change's answer (`201`, `202`) measures: by default
        /// the preview's and flagctl's 100,000, so the numbers agree with theirs. Tests of other things lower it
        /// (a debug build spends seconds of CPU on 100,000).
        public var changeImpactSample = ChangePreview.maximumSample

        /// A shared store: how long a node waits for another node's publish notification before it compares every
        /// environment's newest version anyway, and how often it renews the jobs' lease (`ClusterNode`,
        /// `docs/scaling.md`).
        public var clusterSyncInterval: Duration = .seconds(1)

        /// App Store Server Notifications: the receiver (off without a verifier) and the records' retention.
        public var appStore = AppStoreOptions()

        /// The time the guards' job reads (ms since 1970 UTC): the wall clock; tests and the rehearsal step a clock of
        /// their own through the windows (then `FlagService.runGuards()` runs a pass at once).
        package var guardClock: @Sendable () -> Int64 = ChangeScheduler.wallClock

        /// Defaults.
        public init(requireReadToken: Bool = false) { self.requireReadToken = requireReadToken }
    }

    /// The store; only the writer thread publishes to it.
    public let store: FlagStore
    /// The current snapshot of every environment: what GET and OFREP read.
    public let snapshots: SnapshotStore
    /// Counters for `/metrics`.
    public let metrics: ServiceMetrics
    /// Subscribers of the event streams; the writer publishes every new version to them.
    public let events = EventHub()
    /// Structured logs.
    public let logger: ServiceLogger
    /// The options given at creation.
    public let options: Options
    let authenticator: Authenticator
    /// The middleware of every route: the access each declares, the failed-authentication throttle, the log.
    let routeGuard: RouteGuard
    let writer: WriteQueue
    /// Every environment's governance policy, in memory for the writer (replaced by `PUT .../policy`).
    let policies = PolicyTable()
    /// Keeps the time of changes; its passes are `jobs`'.
    let scheduler = ChangeScheduler()
    /// Publishes changes at their time, expires requests and marks stale ones, where `leadership` says.
    let jobs: ScheduledJobs
    /// Sends webhook deliveries on its own thread (what the routes and the scheduler submit, and `version.published`
    /// from the writer).
    let webhooks: WebhookDispatcher
    /// Off-loop work that may touch SQLite or parse bodies (auth, history, validation).
    let work = DispatchQueue(label: "flagserver.work", qos: .userInitiated, attributes: .concurrent)
    /// This node among the others sharing the store: catch-up, the jobs' lease, the reloads; on one process only the
    /// token table's timer.
    let node: ClusterNode
    /// `/readyz`'s ping of the database, answered within a second whatever the database does.
    let readiness: ReadinessProbe
    /// The server `attach` gave (its counters are in `/metrics`).
    let server = PThreadMutex<HTTPServer?>(nil)

    /// Loads every environment's current version from `store` and starts the writer thread.
    /// Throws `ServiceStartError` when the store fails or a stored document no longer decodes.
    public init(store: FlagStore, options: Options = Options(), logger: ServiceLogger = ServiceLogger()) throws(ServiceStartError) {
        self.store = store
        self.options = options
        self.logger = logger
        snapshots = SnapshotStore()
        metrics = ServiceMetrics()
        do {
            try snapshots.load(from: store)
            try policies.load(from: store)
            authenticator = try Authenticator(store: store)
        } catch let error as FlagDocumentError {
            throw .storedDocumentInvalid(error)
        } catch {
            throw .store(error)
        }
        routeGuard = RouteGuard(authenticator: authenticator,
                                throttle: FailedAuthThrottle(limit: options.authFailureLimit, window: options.authFailureWindow),
                                logger: logger, trustedProxies: options.trustedProxies, requireReadToken: options.requireReadToken)
        // Several nodes: the jobs wait for the lease; one process always runs them.
        let leadership = Leadership(store.topology)
        webhooks = WebhookDispatcher(store: store, metrics: metrics, logger: logger, options: options.webhooks,
                                     leadership: leadership)
        node = ClusterNode(store: store, snapshots: snapshots, events: events, scheduler: scheduler, logger: logger,
                           leadership: leadership, interval: options.clusterSyncInterval,
                           tokenRefreshInterval: options.tokenRefreshInterval)
        writer = WriteQueue(store: store, snapshots: snapshots, metrics: metrics, logger: logger, maximumBatch: options.maximumBatch,
                            webhooks: webhooks, policies: policies, scheduler: scheduler, node: node)
        jobs = ScheduledJobs(store: store, writer: writer, scheduler: scheduler, webhooks: webhooks, leadership: leadership,
                             logger: logger, retention: NotificationRetention(store: store, options: options.appStore, logger: logger),
                             guards: GuardRunner(store: store, writer: writer, webhooks: webhooks, leadership: leadership, logger: logger,
                                                 metrics: metrics.guards, appStore: options.appStore, clock: options.guardClock))
        if options.appStore.verifier == nil {
            // Said once at start: Apple's notifications to this server are answered 404 until a root is configured.
            logger.log(.info, "appstore_receiver_off", ["reason": "no App Store root certificate (--appstore-root-certificate)"])
        }
        readiness = ReadinessProbe { [store, health = writer.health] in
            try store.ping()
            // A commit failed because the database could not take it: whether the write connection now reaches one
            // that does (after a failover, a restart) decides readiness, not the node's next write.
            try health.recheck { try store.checkWriter() }
        }
        webhooks.start()
        writer.start()
        node.start(ClusterNode.Tables(authenticator: authenticator, policies: policies, webhooks: webhooks))
        // Changes that fell due while the server was down, and approved ones a crash left unpublished, are
        // published before the server takes requests (several nodes: by the node that takes the jobs' lease, in its
        // first pass); then the scheduler keeps time.
        jobs.start(environments: snapshots.environments)
    }

    /// Runs a pass of the guards' job now, on this thread, whenever the last one was: what the scheduler does once a
    /// minute, for tests and the rehearsal that step `Options.guardClock`. Nothing on a node that does not run the jobs.
    package func runGuards() {
        jobs.guards?.runNow()
    }

    /// Lets `/metrics` report the server's connections; call after creating the server.
    public func attach(_ server: HTTPServer) {
        self.server.withLock { $0 = server }
    }

    /// Stops the node (its round or token refresh) and the scheduler, finishes queued writes, stops the writer thread
    /// and the webhook dispatcher (after the writer: the last versions' events are handed to the store), and forgets
    /// the server. Call after `HTTPServer.shutdown()` so no new write arrives.
    public func shutdown() {
        node.stop()
        scheduler.stop()
        writer.stop()
        webhooks.stop()
        server.withLock { $0 = nil }
    }

    /// `{"flags": {}}`, the base a first version is compared with (by the writer, a dry run and a preview).
    static let emptyDocument: FlagDocument? = try? FlagDocument(validating: .object(["flags": .object([:])]))
}

/// Why the service could not start.
public enum ServiceStartError: Error, Sendable, CustomStringConvertible {
    /// The store failed while loading (see the cause).
    case store(any Error)
    /// A stored current version no longer decodes as a document.
    case storedDocumentInvalid(FlagDocumentError)
    /// A file under the flags directory is not a valid document; nothing was published.
    case invalidFlagFile(path: String, error: FlagDocumentError)
    /// The flags directory or a file in it cannot be read.
    case unreadable(path: String, reason: String)
    /// A file under the policy directory is not a valid policy, or names no environment; nothing was set.
    case invalidPolicyFile(path: String, reason: String)

    /// One sentence (several lines for a document's issues).
    public var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .storedDocumentInvalid(let error): "a stored current document does not validate: \(error)"
        case .invalidFlagFile(let path, let error): "\(path) is not a valid flag document:\n\(error)"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidPolicyFile(let path, let reason): "\(path) is not a valid policy:\n\(reason)"
        }
    }
}
