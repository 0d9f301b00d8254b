import HTTPServer
import ServerLock

/// Slows down guessing tokens: a client (by address) with `limit` failed authentications within `window`
/// gets 429 with `Retry-After` for the rest of that window, before its token is even looked at.
///
/// A fixed window per address: the first failure opens it, every failure in it counts, and it closes
/// `window` after it opened. Memory is bounded: past `maximumClients` addresses, closed windows are
/// forgotten (and, if every window is open, all of them: a flood of addresses errs toward serving).
public final class FailedAuthThrottle: Sendable {
    struct Window {
        var openedAt: UInt64
        var failures: Int
    }

    /// Failures allowed per window; the next request in the window is refused. 0: never refused.
    public let limit: Int
    /// The window's length in nanoseconds.
    public let windowNanoseconds: UInt64
    /// Most addresses tracked at once.
    public let maximumClients: Int
    private let now: @Sendable () -> UInt64
    private let windows = PThreadMutex<[String: Window]>([:])

    /// A throttle allowing `limit` failures per `window` per client; `now` gives monotonic nanoseconds
    /// (tests step it instead of sleeping).
    public init(limit: Int = 10, window: Duration = .seconds(60), maximumClients: Int = 100_000,
                now: @escaping @Sendable () -> UInt64 = ServiceMetrics.monotonicNanoseconds) {
        self.limit = max(0, limit)
        let components = window.components
        let nanoseconds = max(0, components.seconds) * 1_000_000_000 + max(0, components.attoseconds / 1_000_000_000)
        windowNanoseconds = UInt64(max(1, nanoseconds))
        self.maximumClients = max(1, maximumClients)
        self.now = now
    }

    /// Seconds until `client` may try again (at least 1), or nil when it may try now.
    public func retryAfter(_ client: String) -> Int? {
        let time = now()
        return windows.withLock { windows in
            guard let window = windows[client], time &- window.openedAt < windowNanoseconds else { return nil }
            guard limit > 0, window.failures >= limit else { return nil }
            let left = windowNanoseconds - (time &- window.openedAt)
            return max(1, Int((left + 999_999_999) / 1_000_000_000))
        }
    }

    /// Counts one failed authentication of `client`; returns the failures in its current window.
    @discardableResult
    public func recordFailure(_ client: String) -> Int {
        let time = now()
        return windows.withLock { windows in
            var window = windows[client] ?? Window(openedAt: time, failures: 0)
            if time &- window.openedAt >= windowNanoseconds { window = Window(openedAt: time, failures: 0) }
            window.failures += 1
            if windows[client] == nil && windows.count >= maximumClients {
                let length = windowNanoseconds
                windows = windows.filter { time &- $0.value.openedAt < length }
                if windows.count >= maximumClients { windows.removeAll(keepingCapacity: true) }
            }
            windows[client] = window
            return window.failures
        }
    }

    /// The number of addresses tracked (for tests).
    public var trackedClients: Int { windows.withLock { $0.count } }
}
