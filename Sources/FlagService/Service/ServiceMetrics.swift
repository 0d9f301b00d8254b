import Glibc
import FlagStore
import HTTPServer
import ServerLock
import Synchronization

/// Counters for `/metrics` (Prometheus text exposition format 0.0.4).
public final class ServiceMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One route's counters. Handlers hold a reference, so recording is a few relaxed atomic adds, no lookup.
    public final class Route: @unchecked Sendable {
        /// What `render` reads.
        struct Values {
            /// Indexed by status code (100-599; anything else is counted as 0).
            var byStatus: [Int]
            var buckets: [Int]
            var count: Int
            var sumNanoseconds: UInt64
        }

        /// The counters, as atomics in raw memory: per status code (600), per latency bucket, then the count and
        /// the sum of nanoseconds, once per stripe. A response is counted in the stripe of the event loop that read
        /// its request, with relaxed atomic adds: the loops on different cores do not take turns at one lock or one
        /// cache line for every response (they did, and arrays in a struct under the lock checked their
        /// uniqueness on every `+= 1`). `values()` adds the stripes up.
        static let statuses = 600
        static let slots = statuses + ServiceMetrics.latencyBuckets.count + 2
        /// A power of two.
        static let stripes = 4

        /// `GET /v1/environments/{env}/document`-style label: method and pattern.
        public let method: String
        /// The route pattern.
        public let pattern: String
        private let counts: UnsafeMutablePointer<Atomic<Int>>

        init(method: String, pattern: String) {
            self.method = method
            self.pattern = pattern
            let total = Route.slots * Route.stripes
            counts = .allocate(capacity: total)
            for i in 0..<total { (counts + i).initialize(to: Atomic(0)) }
        }

        deinit {
            counts.deinitialize(count: Route.slots * Route.stripes)
            counts.deallocate()
        }

        /// Counts one response with `status`, `nanoseconds` after the request was complete; `loop` is the index
        /// of the event loop that read the request (`HTTPRequestContext.eventLoop`), which picks the stripe.
        public func record(status: Int, nanoseconds: UInt64, loop: Int = 0) {
            let stripe = counts + (loop & (Route.stripes - 1)) * Route.slots
            stripe[status >= 0 && status < Route.statuses ? status : 0].wrappingAdd(1, ordering: .relaxed)
            if let bucket = ServiceMetrics.bucket(nanoseconds: nanoseconds) {
                stripe[Route.statuses + bucket].wrappingAdd(1, ordering: .relaxed)
            }
            stripe[Route.slots - 2].wrappingAdd(1, ordering: .relaxed)
            stripe[Route.slots - 1].wrappingAdd(Int(truncatingIfNeeded: nanoseconds), ordering: .relaxed)
        }

        /// The counters, all stripes added up.
        func values() -> Values {
            var sums = [UInt64](repeating: 0, count: Route.slots)
            for s in 0..<Route.stripes {
                for i in 0..<Route.slots { sums[i] &+= UInt64(truncatingIfNeeded: counts[s * Route.slots + i].load(ordering: .relaxed)) }
            }
            let buckets = ServiceMetrics.latencyBuckets.count
            let bucketCounts = sums[Route.statuses..<Route.statuses + buckets].map { Int($0) }
            // `record` adds to the bucket before the count, and these relaxed loads can see the one without the
            // other: a scrape must never show the `+Inf` bucket (the count) below a finite one (Prometheus's
            // histogram invariant), so the count is at least the buckets' sum.
            return Values(byStatus: sums[0..<Route.statuses].map { Int($0) }, buckets: bucketCounts,
                          count: max(Int(sums[Route.slots - 2]), bucketCounts.reduce(0, +)), sumNanoseconds: sums[Route.slots - 1])
        }
    }

    /// `latencyBuckets` in nanoseconds: the bucket is found with integer comparisons, no division.
    static let latencyBucketNanoseconds: [UInt64] = latencyBuckets.map { UInt64(($0 * 1e9).rounded()) }

    /// The index of the first bucket whose upper bound `nanoseconds` does not exceed, nil past the last.
    static func bucket(nanoseconds: UInt64) -> Int? {
        // Most requests fall in the first bucket (100 µs): answered before the table is even looked at.
        if nanoseconds <= 100_000 { return 0 }
        return latencyBucketNanoseconds.withUnsafeBufferPointer { bounds in
            var i = 0
            while i < bounds.count {
                if nanoseconds <= bounds[i] { return i }
                i += 1
            }
            return nil
        }
    }

    private let routes = PThreadMutex([Route]())
    /// New versions committed.
    let published = Atomic<Int>(0)
    /// Writes that changed nothing.
    let unchanged = Atomic<Int>(0)
    /// Writes refused by the store or failed.
    let publishFailures = Atomic<Int>(0)
    /// Writes built again on a newer version after another node committed first (PostgreSQL, several nodes).
    let publishRetries = Atomic<Int>(0)
    /// Group commits (batches) written, and requests in them.
    let batches = Atomic<Int>(0)
    /// Audit lines of refusals (and unchanged writes) handed to the writer.
    let auditQueued = Atomic<Int>(0)
    /// Audit lines lost: the writer's queue was full, or their commit failed.
    let auditDropped = Atomic<Int>(0)
    /// Refusals of throttled clients (429), counted instead of written one per request.
    let auditThrottled = Atomic<Int>(0)
    /// Webhook events dropped because the dispatcher's queue was full.
    let webhookEventsDropped = Atomic<Int>(0)
    /// Webhook events handed to the store (one delivery per receiving webhook).
    let webhookEvents = Atomic<Int>(0)
    /// Webhook attempts by outcome: delivered (2xx), retry (will be tried again), failed (given up).
    let webhookDelivered = Atomic<Int>(0)
    let webhookRetried = Atomic<Int>(0)
    let webhookFailed = Atomic<Int>(0)
    /// Webhook attempts not sent: the destination was, or resolved to, an address inside (counted also by outcome).
    let webhookRefused = Atomic<Int>(0)

    /// Promotional offer signatures by outcome: signed (200), refused (any other answer after the token was accepted).
    let offerSignaturesSigned = Atomic<Int>(0)
    let offerSignaturesRefused = Atomic<Int>(0)

    /// The App Store notification receiver's counters.
    let appStore = AppStoreMetrics()
    /// The guards' decisions and statuses.
    let guards = GuardMetrics()

    /// No counters yet.
    public init() {}

    /// The counters of route `method pattern`, created on first use (at router build time).
    public func route(_ method: String, _ pattern: String) -> Route {
        routes.withLock { routes in
            if let existing = routes.first(where: { $0.method == method && $0.pattern == pattern }) { return existing }
            let route = Route(method: method, pattern: pattern)
            routes.append(route)
            return route
        }
    }

    /// Records the outcome of a publish attempt.
    func recordPublish(changed: Bool) {
        if changed { published.add(1, ordering: .relaxed) } else { unchanged.add(1, ordering: .relaxed) }
    }

    /// The exposition text: per-route request counts and latency histograms, current version per
    /// environment, publishes, how long the shared database has been unreachable (0 while it is reachable or there is
    /// none), and the HTTP server's connection counters when `server` is given.
    public func render(snapshots: [String: Snapshot], server: HTTPServerMetrics?, databaseUnreachableSeconds: Int = 0) -> String {
        var out = ""
        out += "# HELP flagserver_requests_total Requests answered, by route and status.\n"
        out += "# TYPE flagserver_requests_total counter\n"
        let all = routes.withLock { $0 }
        var histograms = ""
        for route in all {
            let v = route.values()
            let labels = "method=\"\(route.method)\",route=\"\(route.pattern)\""
            for (status, count) in v.byStatus.enumerated() where count > 0 {
                out += "flagserver_requests_total{\(labels),status=\"\(status)\"} \(count)\n"
            }
            var cumulative = 0
            for (index, bound) in Self.latencyBuckets.enumerated() {
                cumulative += v.buckets[index]
                histograms += "flagserver_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n"
            }
            histograms += "flagserver_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(v.count)\n"
            histograms += "flagserver_request_duration_seconds_sum{\(labels)} \(Double(v.sumNanoseconds) / 1e9)\n"
            histograms += "flagserver_request_duration_seconds_count{\(labels)} \(v.count)\n"
        }
        out += "# HELP flagserver_request_duration_seconds Time from a complete request to its response.\n"
        out += "# TYPE flagserver_request_duration_seconds histogram\n" + histograms
        out += "# HELP flagserver_document_version Current version number per environment.\n"
        out += "# TYPE flagserver_document_version gauge\n"
        for (name, snapshot) in snapshots.sorted(by: { $0.key < $1.key }) {
            out += "flagserver_document_version{environment=\"\(name)\"} \(snapshot.version)\n"
        }
        out += "# HELP flagserver_database_unreachable_seconds Seconds since the snapshots were last confirmed by the shared database, while this node cannot reach it (0 while it can).\n"
        out += "# TYPE flagserver_database_unreachable_seconds gauge\n"
        out += "flagserver_database_unreachable_seconds \(databaseUnreachableSeconds)\n"
        out += "# HELP flagserver_publishes_total Writes by outcome (published: a new version was committed).\n"
        out += "# TYPE flagserver_publishes_total counter\n"
        out += "flagserver_publishes_total{outcome=\"published\"} \(published.load(ordering: .relaxed))\n"
        out += "flagserver_publishes_total{outcome=\"unchanged\"} \(unchanged.load(ordering: .relaxed))\n"
        out += "flagserver_publishes_total{outcome=\"failed\"} \(publishFailures.load(ordering: .relaxed))\n"
        out += "# HELP flagserver_publish_retries_total Writes built again on the newest version after another node committed first.\n"
        out += "# TYPE flagserver_publish_retries_total counter\n"
        out += "flagserver_publish_retries_total \(publishRetries.load(ordering: .relaxed))\n"
        out += "# HELP flagserver_group_commits_total Durable commits of the writer (each may hold several writes).\n"
        out += "# TYPE flagserver_group_commits_total counter\n"
        out += "flagserver_group_commits_total \(batches.load(ordering: .relaxed))\n"
        out += governanceCounters()
        out += appStore.exposition()
        out += guards.exposition()
        if let server {
            out += "# HELP flagserver_open_connections Connections open now.\n"
            out += "# TYPE flagserver_open_connections gauge\n"
            out += "flagserver_open_connections \(server.connectionsOpen)\n"
            out += "# HELP flagserver_open_streams Event streams open now.\n"
            out += "# TYPE flagserver_open_streams gauge\n"
            out += "flagserver_open_streams \(server.streamsOpen)\n"
            out += "# HELP flagserver_streams_dropped_total Event-stream subscribers dropped for not reading.\n"
            out += "# TYPE flagserver_streams_dropped_total counter\n"
            out += "flagserver_streams_dropped_total \(server.streamsDropped)\n"
            out += "# HELP flagserver_connections_total Connections by outcome since start.\n"
            out += "# TYPE flagserver_connections_total counter\n"
            out += "flagserver_connections_total{outcome=\"accepted\"} \(server.connectionsAccepted)\n"
            out += "flagserver_connections_total{outcome=\"rejected\"} \(server.connectionsRejected)\n"
            out += "flagserver_connections_total{outcome=\"timed_out\"} \(server.connectionsTimedOut)\n"
            out += "# HELP flagserver_connections_moved_total Idle keep-alive connections moved to the event loop on the CPU their requests arrive on.\n"
            out += "# TYPE flagserver_connections_moved_total counter\n"
            out += "flagserver_connections_moved_total \(server.connectionsMoved)\n"
            out += "# HELP flagserver_http_responses_total Every response the HTTP layer sent (also 404/405 for unknown routes), by status.\n"
            out += "# TYPE flagserver_http_responses_total counter\n"
            for (status, count) in server.responsesByStatus.sorted(by: { $0.key < $1.key }) {
                out += "flagserver_http_responses_total{status=\"\(status)\"} \(count)\n"
            }
        }
        return out
    }

    /// The audit and webhook counters' exposition text.
    private func governanceCounters() -> String {
        func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) -> String {
            "# HELP \(name) \(help)\n# TYPE \(name) counter\n" + samples.map { "\(name)\($0.labels) \($0.value)\n" }.joined()
        }
        return counter("flagserver_audit_lines_total", "Audit lines of refusals and unchanged writes, by what became of them.", [
            ("{outcome=\"queued\"}", auditQueued.load(ordering: .relaxed)),
            ("{outcome=\"dropped\"}", auditDropped.load(ordering: .relaxed)),
        ]) + counter("flagserver_audit_throttled_total", "Refusals of throttled clients (429), counted instead of audited.", [
            ("", auditThrottled.load(ordering: .relaxed)),
        ]) + counter("flagserver_webhook_events_total", "Webhook events, by what became of them.", [
            ("{outcome=\"enqueued\"}", webhookEvents.load(ordering: .relaxed)),
            ("{outcome=\"dropped\"}", webhookEventsDropped.load(ordering: .relaxed)),
        ]) + counter("flagserver_webhook_attempts_total", "Webhook delivery attempts, by outcome.", [
            ("{outcome=\"delivered\"}", webhookDelivered.load(ordering: .relaxed)),
            ("{outcome=\"retry\"}", webhookRetried.load(ordering: .relaxed)),
            ("{outcome=\"failed\"}", webhookFailed.load(ordering: .relaxed)),
        ]) + counter("flagserver_webhook_refusals_total",
                     "Webhook attempts not sent: the destination was, or resolved to, an address inside.", [
            ("", webhookRefused.load(ordering: .relaxed)),
        ]) + counter("flagserver_offer_signatures_total",
                     "Promotional offer signature requests with an accepted token, by outcome (docs/guards.md).", [
            ("{outcome=\"signed\"}", offerSignaturesSigned.load(ordering: .relaxed)),
            ("{outcome=\"refused\"}", offerSignaturesRefused.load(ordering: .relaxed)),
        ])
    }

    /// `CLOCK_REALTIME` in milliseconds since 1970 UTC: when something happened, for audit lines and webhook
    /// events (their time, not the time they are written).
    @Sendable public static func wallMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec / 1_000_000)
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: the clock of `HTTPRequestContext.receivedAtNanoseconds`.
    @Sendable public static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
