import FlagStore

/// When a failed webhook delivery is tried again: exponential backoff with jitter, a bounded number of
/// attempts (`docs/governance.md`: 1 s, 2 s, 4 s, ... up to 8 attempts, then `failed`).
public struct WebhookRetryPolicy: Sendable, Equatable {
    /// The wait after the first failed attempt, in milliseconds (`--webhook-retry-base-ms`); each later wait doubles.
    public var baseMilliseconds: Int64
    /// Attempts in all, the first included; after the last one fails the delivery is `failed`.
    public var maximumAttempts: Int

    /// 1 s, doubling, 8 attempts: the last retry about two minutes after the event, long enough for a
    /// receiver's restart or deploy, short enough that nobody wonders where a delivery went.
    public init(baseMilliseconds: Int64 = 1000, maximumAttempts: Int = 8) {
        self.baseMilliseconds = max(1, baseMilliseconds)
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// The wait after failed attempt `attempt` (1 for the first): `base · 2^(attempt−1)`, times `jitter`'s factor.
    /// `jitter` in 0..<1 maps to a factor in 0.8..<1.2, so deliveries that failed together (a receiver was down)
    /// do not all come back in the same millisecond.
    public func delayMilliseconds(afterAttempt attempt: Int, jitter: Double) -> Int64 {
        let doublings = Int64(min(max(attempt, 1) - 1, 30))
        let (delay, overflow) = baseMilliseconds.multipliedReportingOverflow(by: 1 << doublings)
        let factor = 0.8 + 0.4 * min(max(jitter, 0), 1)
        let jittered = (Double(delay) * factor).rounded()
        return overflow || jittered >= Double(Int64.max) ? .max : Int64(jittered)
    }

    /// What becomes of a delivery after attempt `attempt`: delivered on a 2xx, else retried after the backoff
    /// (from `now`, milliseconds since 1970 UTC) until `maximumAttempts` were made, then failed.
    public func outcome(afterAttempt attempt: Int, delivered: Bool, now: Int64, jitter: Double) -> WebhookAttemptOutcome {
        if delivered { return .delivered }
        guard attempt < maximumAttempts else { return .failed }
        let (at, overflow) = now.addingReportingOverflow(delayMilliseconds(afterAttempt: attempt, jitter: jitter))
        return .retry(atMilliseconds: overflow ? .max : at)
    }
}
