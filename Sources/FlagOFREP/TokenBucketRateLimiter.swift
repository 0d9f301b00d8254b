import HTTPServer
import ServerLock

/// A token bucket per client (Anderson's "leaky bucket as a meter"): each client may make `burst`
/// requests at once and `rate` per second on average. Thread-safe (one `PThreadMutex`), and pure logic:
/// time comes from an injected clock so that tests step it instead of sleeping.
public final class TokenBucketRateLimiter: Sendable {
    /// What a client may do now.
    public enum Decision: Sendable, Equatable {
        /// Go ahead (one token taken).
        case allowed
        /// Refused; the next token is available after this many whole seconds (for `Retry-After`,
        /// RFC 9110 §10.2.3, which counts in seconds: at least 1).
        case limited(retryAfterSeconds: Int)
    }

    struct Bucket {
        var tokens: Double
        var updatedAt: UInt64
    }

    struct State {
        var buckets: [String: Bucket] = [:]
    }

    /// Tokens added per second.
    public let rate: Double
    /// Bucket size: the requests a client may make at once after being idle.
    public let burst: Double
    /// Past this many tracked clients, full (idle) buckets are forgotten; memory stays bounded
    /// however many peers or tokens appear.
    public let maximumClients: Int
    private let now: @Sendable () -> UInt64
    private let state = PThreadMutex(State())

    /// A limiter allowing `rate` requests per second per client with bursts of `burst`.
    /// `now` returns monotonic nanoseconds (default: `CLOCK_MONOTONIC` through `ContinuousClock`).
    /// Returns nil for a rate or burst that is not positive and finite.
    public init?(rate: Double, burst: Double, maximumClients: Int = 100_000,
                 now: @escaping @Sendable () -> UInt64 = TokenBucketRateLimiter.monotonicNanoseconds) {
        guard rate.isFinite, rate > 0, burst.isFinite, burst >= 1, maximumClients > 0 else { return nil }
        self.rate = rate
        self.burst = burst
        self.maximumClients = maximumClients
        self.now = now
    }

    /// Takes one token from `client`'s bucket, or says how long to wait.
    public func acquire(_ client: String) -> Decision {
        let time = now()
        return state.withLock { state in
            var bucket = state.buckets[client] ?? Bucket(tokens: burst, updatedAt: time)
            let elapsed = time >= bucket.updatedAt ? Double(time - bucket.updatedAt) / 1e9 : 0
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.updatedAt = time
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                let wait = (1 - bucket.tokens) / rate
                decision = .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
            }
            if state.buckets[client] == nil && state.buckets.count >= maximumClients { evictIdle(&state, at: time) }
            state.buckets[client] = bucket
            return decision
        }
    }

    /// The number of clients currently tracked (for tests and metrics).
    public var trackedClients: Int { state.withLock { $0.buckets.count } }

    /// Forgets clients whose bucket has refilled (they are indistinguishable from new ones); if all are
    /// busy, forgets everyone rather than grow without bound (a flood of distinct clients then gets fresh
    /// buckets, which errs toward serving).
    private func evictIdle(_ state: inout State, at time: UInt64) {
        let rate = self.rate, burst = self.burst
        state.buckets = state.buckets.filter { _, bucket in
            let elapsed = time >= bucket.updatedAt ? Double(time - bucket.updatedAt) / 1e9 : 0
            return bucket.tokens + elapsed * rate < burst
        }
        if state.buckets.count >= maximumClients { state.buckets.removeAll(keepingCapacity: true) }
    }

    /// Monotonic nanoseconds since an arbitrary start.
    @Sendable public static func monotonicNanoseconds() -> UInt64 {
        let d = ContinuousClock.now - start
        return UInt64(max(0, d.components.seconds)) &* 1_000_000_000 &+ UInt64(max(0, d.components.attoseconds / 1_000_000_000))
    }

    private static let start = ContinuousClock.now
}
