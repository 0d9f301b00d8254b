import FlagStore
import Glibc
import HTTPServer
import ServerLock
import Synchronization

/// Refuses failing authentications past a limit per client address, never credentials: a request whose token
/// verifies is served whatever its address did before (the caller asks only after a failure), so an attacker
/// cannot lock out the users behind a NAT or a proxy by sending bad tokens from the same address.
///
/// A fixed window per address: the first failure opens it, every failure in it counts, and it closes `window`
/// after it opened. The first `limit` failures are answered 401 (and logged); later ones in the window 429 with
/// `Retry-After` (counted, one log line per window). IPv6 addresses count per /64, the block one subscriber
/// gets (RFC 6177), so rotating addresses inside it is one client. Memory is bounded: at `maximumClients`
/// addresses the oldest window is forgotten first (a FIFO of windows by opening time; expired ones are dropped
/// as they reach its front), so a flood of addresses can only make the throttle forget its oldest entries.
public final class FailedAuthThrottle: Sendable {
    /// What became of one failed authentication.
    public enum Verdict: Sendable, Equatable {
        /// Counted; answer 401. `failures` is the number in the client's window so far.
        case unauthorized(failures: Int)
        /// Past the limit; answer 429 with `Retry-After: seconds`. `first` on the first refusal of a window (log it).
        case refused(retryAfterSeconds: Int, first: Bool)
    }

    struct Window {
        var openedAt: UInt64
        var failures: Int
    }

    struct State {
        var windows: [String: Window] = [:]
        /// (client, openedAt) in opening order; an entry whose window has reopened since is stale and skipped.
        var order: [(client: String, openedAt: UInt64)] = []
        var orderStart = 0
    }

    /// Failures answered 401 per window; later ones get 429. 0: never refused.
    public let limit: Int
    /// The window's length in nanoseconds.
    public let windowNanoseconds: UInt64
    /// Most addresses tracked at once.
    public let maximumClients: Int
    private let now: @Sendable () -> UInt64
    private let state = PThreadMutex(State())
    /// Failures answered 401, answered 429, and windows forgotten to stay within `maximumClients`.
    let unauthorizedCount = Atomic<Int>(0)
    let refusedCount = Atomic<Int>(0)
    let evictedCount = Atomic<Int>(0)

    /// A throttle allowing `limit` failures per `window` per client; `now` gives monotonic nanoseconds
    /// (tests step it instead of sleeping).
    public init(limit: Int = 10, window: Duration = .seconds(60), maximumClients: Int = 100_000,
                now: @escaping @Sendable () -> UInt64 = ServiceMetrics.monotonicNanoseconds) {
        self.limit = max(0, limit)
        windowNanoseconds = max(1, MonotonicClock.nanoseconds(window))
        self.maximumClients = max(1, maximumClients)
        self.now = now
    }

    /// Seconds until `client`'s failures are answered 401 again (at least 1), or nil when they are now.
    public func retryAfter(_ client: String) -> Int? {
        let time = now()
        let key = Self.key(client)
        return state.withLock { state in
            guard let window = state.windows[key], time &- window.openedAt < windowNanoseconds,
                  limit > 0, window.failures >= limit else { return nil }
            return secondsLeft(window, at: time)
        }
    }

    /// Counts one failed authentication of `client` and says how to answer it.
    public func recordFailure(_ client: String) -> Verdict {
        let time = now()
        let key = Self.key(client)
        let verdict: Verdict = state.withLock { state in
            if var window = state.windows[key], time &- window.openedAt < windowNanoseconds {
                if limit > 0 && window.failures >= limit {
                    window.failures += 1
                    state.windows[key] = window
                    return .refused(retryAfterSeconds: secondsLeft(window, at: time), first: window.failures == limit + 1)
                }
                window.failures += 1
                state.windows[key] = window
                return .unauthorized(failures: window.failures)
            }
            dropExpired(&state, at: time)
            if state.windows[key] == nil && state.windows.count >= maximumClients { evictOldest(&state) }
            state.windows[key] = Window(openedAt: time, failures: 1)
            state.order.append((key, time))
            return .unauthorized(failures: 1)
        }
        switch verdict {
        case .unauthorized: unauthorizedCount.add(1, ordering: .relaxed)
        case .refused: refusedCount.add(1, ordering: .relaxed)
        }
        return verdict
    }

    /// The number of addresses tracked.
    public var trackedClients: Int { state.withLock { $0.windows.count } }

    /// The throttle's lines for `/metrics`.
    func exposition() -> String {
        """
        # HELP flagserver_auth_failures_total Failed authentications, by answer: 401 up to the limit per address, 429 past it.
        # TYPE flagserver_auth_failures_total counter
        flagserver_auth_failures_total{answer="unauthorized"} \(unauthorizedCount.load(ordering: .relaxed))
        flagserver_auth_failures_total{answer="throttled"} \(refusedCount.load(ordering: .relaxed))
        # HELP flagserver_auth_throttle_evictions_total Address windows forgotten early to keep the table within its bound.
        # TYPE flagserver_auth_throttle_evictions_total counter
        flagserver_auth_throttle_evictions_total \(evictedCount.load(ordering: .relaxed))
        # HELP flagserver_auth_throttle_clients Addresses (IPv6 per /64) with an open failure window.
        # TYPE flagserver_auth_throttle_clients gauge
        flagserver_auth_throttle_clients \(trackedClients)

        """
    }

    /// The key an address counts under: an IPv6 address's /64 (`2001:db8:1:2::/64`), anything else as given.
    /// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address.
    static func key(_ client: String) -> String {
        guard client.utf8.contains(UInt8(ascii: ":")) else { return client }
        var address = in6_addr()
        guard inet_pton(AF_INET6, client, &address) == 1 else { return client }
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    private func secondsLeft(_ window: Window, at time: UInt64) -> Int {
        let left = windowNanoseconds - min(windowNanoseconds, time &- window.openedAt)
        return max(1, Int((left + 999_999_999) / 1_000_000_000))
    }

    /// Drops windows that have closed from the front of the FIFO (amortized O(1) per failure).
    private func dropExpired(_ state: inout State, at time: UInt64) {
        while state.orderStart < state.order.count {
            let entry = state.order[state.orderStart]
            if let window = state.windows[entry.client], window.openedAt == entry.openedAt {
                guard time &- window.openedAt >= windowNanoseconds else { break }
                state.windows[entry.client] = nil
            }
            state.orderStart += 1
        }
        compact(&state)
    }

    /// Forgets the window that opened first.
    private func evictOldest(_ state: inout State) {
        while state.orderStart < state.order.count {
            let entry = state.order[state.orderStart]
            state.orderStart += 1
            if let window = state.windows[entry.client], window.openedAt == entry.openedAt {
                state.windows[entry.client] = nil
                evictedCount.add(1, ordering: .relaxed)
                break
            }
        }
        compact(&state)
    }

    /// Gives back the FIFO's consumed front once it is half of the array.
    private func compact(_ state: inout State) {
        guard state.orderStart > 1024 && state.orderStart * 2 >= state.order.count else { return }
        state.order.removeFirst(state.orderStart)
        state.orderStart = 0
    }
}
