import ClientHTTP
import FlagKit
import FlagStore
import Foundation
import ServerLock
import Synchronization

/// Sends the webhooks' deliveries (`docs/governance.md`, "Webhooks"), on a thread of its own, so a webhook
/// never delays or fails what it reports.
///
/// Events come from `notify` and from `WriteQueue.announce` (`version.published`) through a bounded queue in
/// memory: `submit` takes a lock for an append and returns, and while no webhook is registered it returns
/// after one atomic load. The thread builds each event's body once, hands the events to the store
/// (`enqueueWebhookEvents`: one delivery per receiving webhook, one transaction for all that gathered), and
/// sends the deliveries that are due, several at once (a receiver that never answers holds one slot for the
/// timeout, not the others' deliveries), each attempt signed, recorded in the delivery log, and retried after
/// `WebhookRetryPolicy`'s backoff. Pending deliveries live in the store, so they resume after a restart.
public final class WebhookDispatcher: Sendable {
    /// What a deployment can change.
    public struct Options: Sendable {
        /// Backoff and attempts.
        public var retry = WebhookRetryPolicy()
        /// Connect and total timeout of one attempt.
        public var timeout: Duration = .seconds(5)
        /// Events waiting for the thread; past it events are dropped (counted and logged).
        public var queueCapacity = 1024
        /// Attempts in flight at once.
        public var maximumInFlight = 8
        /// Which addresses deliveries may reach (by default none inside: loopback, private, link-local, ...).
        public var destinations = WebhookDestinationPolicy()

        /// The defaults: 1 s base backoff, 8 attempts, 5 s per attempt.
        public init() {}
    }

    /// An event waiting to be handed to the store.
    struct Event: Sendable {
        var type: String
        var environment: String?
        var data: [String: JSONValue]
        var atMilliseconds: Int64
    }

    /// What the submitters, the thread and the attempts share.
    struct State: Sendable {
        var events: [Event] = []
        /// Events dropped since the thread last took the queue (for its log line).
        var dropped = 0
        /// Deliveries being attempted now, by id, with their tasks (cancelled at `stop`).
        var inFlight: Set<Int64> = []
        var tasks: [Int64: Task<Void, Never>] = [:]
        /// Attempts writing their outcome to the store now; `stop` waits for them (the store closes after it).
        var recording = 0
        /// Something finished or changed: look at the due deliveries again.
        var wake = false
        var started = false
        var stopping = false
        var finished = false
    }

    let state = PThreadCondition(State())
    /// The active webhooks (without secrets), for deciding cheaply whether anyone wants an event.
    let receivers = PThreadMutex<[WebhookRecord]>([])
    /// How many `receivers` there are: 0 makes `submit` return after one load.
    let receiverCount = Atomic<Int>(0)
    /// Whether this node sends the deliveries (`Leadership`: always on a single-process store, on a shared one only
    /// while it holds the jobs' lease). Events are stored as deliveries by whichever node publishes, either way.
    let leadership: Leadership
    let store: FlagStore
    let metrics: ServiceMetrics
    let logger: ServiceLogger
    let options: Options
    let transport: any HTTPTransport

    /// A dispatcher over `store`'s webhooks, sending with `transport` (the platform's, libcurl on Linux, with
    /// `options.timeout`, when nil) while `leadership` says this node leads (by default: always). Call `start()`.
    init(store: FlagStore, metrics: ServiceMetrics, logger: ServiceLogger, options: Options = Options(),
         transport: (any HTTPTransport)? = nil, leadership: Leadership = Leadership()) {
        self.store = store
        self.leadership = leadership
        self.metrics = metrics
        self.logger = logger
        self.options = options
        self.transport = transport ?? TransportKind.platformDefault.makeTransport(options: TransportOptions(
            connectTimeout: options.timeout, totalTimeout: options.timeout, maxResponseBodyBytes: 1 << 20))
        reloadReceivers()
    }

    /// Starts the thread; it first resumes whatever deliveries are pending in the store.
    public func start() {
        state.withLock { $0.started = true }
        let thread = Thread { [self] in run() }
        thread.name = "flagserver-webhooks"
        thread.start()
    }

    /// Hands queued events to the store, abandons attempts in flight (they stay pending and resume after a
    /// restart), waits for attempts being recorded, and stops the thread. Returns within about a second
    /// whatever the receivers do.
    public func stop() {
        let started = state.withLock { state in
            state.stopping = true
            return state.started
        }
        state.broadcast()
        guard started else { return }
        state.wait(until: { $0.finished }) { _ in }
    }

    /// Reads the active webhooks again (after one was registered or deleted).
    public func reloadReceivers() {
        do {
            let active = try store.webhooks()
            receivers.withLock { $0 = active }
            receiverCount.store(active.count, ordering: .releasing)
        } catch {
            logger.log(.warning, "webhook_reload_failed", ["error": "\(error)"])
        }
        state.withLock { $0.wake = true }
        state.signal()
    }

    /// Queues event `type` about `environment` with `data` (the body's `data` member) when a webhook wants
    /// it. Never blocks and never fails: a full queue drops the event (counted, logged by the thread).
    public func submit(_ type: String, environment: String?, data makeData: @autoclosure () -> [String: JSONValue],
                       atMilliseconds: Int64 = ServiceMetrics.wallMilliseconds()) {
        guard receiverCount.load(ordering: .acquiring) > 0 else { return }
        guard receivers.withLock({ $0.contains { $0.receives(type: type, environment: environment) } }) else { return }
        // Built only now: a change's data is its whole change set, and most events have no receiver.
        let data = makeData()
        let capacity = options.queueCapacity
        let accepted = state.withLock { state in
            guard !state.finished, state.events.count < capacity else {
                state.dropped += 1
                return false
            }
            state.events.append(Event(type: type, environment: environment, data: data, atMilliseconds: atMilliseconds))
            return true
        }
        guard accepted else {
            metrics.webhookEventsDropped.add(1, ordering: .relaxed)
            return
        }
        state.signal()
    }

    /// Event `type` about a change, with the change's JSON form as the event's data.
    func submit(_ type: String, change record: ChangeRecord) {
        submit(type, environment: record.environment, data: record.jsonValue.objectValue ?? [:])
    }

    /// A guard's event (`guard.added`, `guard.tripped`, ...): `{"guard": ..., "decision": ...}`, the decision null for
    /// a person's act (adding, removing, overriding decides nothing).
    func submit(_ type: String, guard record: GuardRecord, decision: JSONValue? = nil) {
        submit(type, environment: record.environment, data: ["guard": record.jsonValue, "decision": decision ?? .null])
    }

    /// `version.published` for a version that just became current: environment, version, ETag, author,
    /// message, publication time (and `rolledBackFrom` for a rollback, `changeId` for an applied change).
    func versionPublished(_ snapshot: Snapshot, changeID: Int64? = nil) {
        guard receiverCount.load(ordering: .acquiring) > 0 else { return }
        let record = snapshot.record
        var data: [String: JSONValue] = [
            "version": .integer(Int64(record.number)), "etag": .string(snapshot.etag), "author": .string(record.author),
            "message": .string(record.message), "publishedAt": .string(RFC3339.string(milliseconds: record.createdAtMilliseconds)),
        ]
        if let from = record.rolledBackFrom { data["rolledBackFrom"] = .integer(Int64(from)) }
        if let changeID { data["changeId"] = .integer(changeID) }
        submit("version.published", environment: snapshot.environment, data: data, atMilliseconds: record.createdAtMilliseconds)
    }

    /// The body POSTed for an event: canonical JSON `{"createdAt", "data", "environment", "id", "type"}` and a
    /// newline, like every JSON body the server sends. Built once; every webhook and attempt sends these bytes.
    static func payload(id: String, _ event: Event) -> [UInt8] {
        let body: JSONValue = .object([
            "id": .string(id), "type": .string(event.type), "createdAt": .string(RFC3339.string(milliseconds: event.atMilliseconds)),
            "environment": event.environment.map(JSONValue.string) ?? .null, "data": .object(event.data),
        ])
        return body.canonicalBytes + [0x0A]
    }
}
