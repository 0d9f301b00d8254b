import Foundation

/// Whether a fetch may start now.
public enum RefreshDecision: Sendable, Equatable {
    /// Fetch now.
    case fetch
    /// Do not fetch before `until`, for `reason`.
    case wait(until: Date, reason: RefreshWaitReason)
}

/// Why a fetch has to wait.
public enum RefreshWaitReason: Sendable, Equatable {
    /// The last attempt was less than ``RefreshPolicy/minimumInterval`` ago.
    case minimumInterval
    /// Backing off after this many consecutive failures.
    case backoff(failures: Int)
    /// The server asked for it with `Retry-After` on a 429 or 503.
    case retryAfter
}

/// The refresh state of one client: pure logic, no clock and no randomness of its own.
///
/// The caller passes `now` (the app's `Date()`, a test's fixed instants) and a random number generator,
/// so every decision is reproducible in tests. Use: ask ``decide(now:forced:)``; on `.fetch` call
/// ``recordAttempt(at:)``, then ``recordSuccess(at:)`` for a usable `200` or `304`, otherwise
/// ``recordFailure(at:status:retryAfter:using:)``.
///
/// `forced` (the user pulled to refresh) skips the minimum interval and the failure backoff, but never a
/// server's `Retry-After`: the server said it is overloaded, and a forced fetch would only add to that.
/// Wall clocks can jump backwards; a wait that ends further in the future than the policy could ever ask
/// for is taken as such a jump and ignored.
public struct RefreshSchedule: Sendable, Equatable {
    /// The tunables.
    public let policy: RefreshPolicy
    /// Failures since the last success.
    public private(set) var consecutiveFailures = 0
    /// When the last fetch started.
    public private(set) var lastAttempt: Date?
    /// When the last usable answer arrived.
    public private(set) var lastSuccess: Date?
    /// No fetch before this (unless forced), after failures.
    public private(set) var backoffUntil: Date?
    /// No fetch before this, as the server asked.
    public private(set) var retryAfterUntil: Date?

    /// Creates a fresh schedule: the first fetch may start at once.
    public init(policy: RefreshPolicy = RefreshPolicy()) {
        self.policy = policy
    }

    /// Whether a fetch may start at `now`; `forced` as described on the type.
    public func decide(now: Date, forced: Bool = false) -> RefreshDecision {
        var waits: [(Date, RefreshWaitReason)] = []
        if let until = retryAfterUntil, plausible(until, now: now, within: policy.maxRetryAfter) {
            waits.append((until, .retryAfter))
        }
        if !forced {
            if let until = backoffUntil, plausible(until, now: now, within: policy.backoffCap) {
                waits.append((until, .backoff(failures: consecutiveFailures)))
            }
            if let last = lastAttempt {
                let until = last.addingTimeInterval(RefreshPolicy.seconds(policy.minimumInterval))
                if plausible(until, now: now, within: policy.minimumInterval) { waits.append((until, .minimumInterval)) }
            }
        }
        guard let latest = waits.max(by: { $0.0 < $1.0 }) else { return .fetch }
        return .wait(until: latest.0, reason: latest.1)
    }

    /// A fetch starts at `now`.
    public mutating func recordAttempt(at now: Date) {
        lastAttempt = now
    }

    /// The fetch gave a usable answer (a valid `200`, or `304`): failures and waits are forgotten.
    public mutating func recordSuccess(at now: Date) {
        lastSuccess = now
        consecutiveFailures = 0
        backoffUntil = nil
        retryAfterUntil = nil
    }

    /// The fetch failed: no response (`status` nil), an unusable status, or an invalid document.
    /// `retryAfter` is the raw `Retry-After` value, honoured for 429 and 503 only and bounded by the policy.
    public mutating func recordFailure(at now: Date, status: Int? = nil, retryAfter: String? = nil,
                                       using random: inout some RandomNumberGenerator) {
        consecutiveFailures = consecutiveFailures == Int.max ? Int.max : consecutiveFailures + 1
        let delay = policy.backoffDelay(afterFailures: consecutiveFailures, using: &random)
        backoffUntil = now.addingTimeInterval(RefreshPolicy.seconds(delay))
        retryAfterUntil = nil
        if let status, RetryAfter.applies(toStatus: status), let value = retryAfter,
           let requested = RetryAfter.parse(value, now: now) {
            let longest = now.addingTimeInterval(RefreshPolicy.seconds(policy.maxRetryAfter))
            retryAfterUntil = min(requested, longest)
        }
    }

    /// Convenience with the system's random number generator.
    public mutating func recordFailure(at now: Date, status: Int? = nil, retryAfter: String? = nil) {
        var random = SystemRandomNumberGenerator()
        recordFailure(at: now, status: status, retryAfter: retryAfter, using: &random)
    }

    /// A wait ending in the past is over; one ending later than `now + longest` comes from a clock that
    /// went backwards and is dropped rather than honoured for hours.
    private func plausible(_ until: Date, now: Date, within longest: Duration) -> Bool {
        until > now && until.timeIntervalSince(now) <= RefreshPolicy.seconds(longest) + 1
    }
}
