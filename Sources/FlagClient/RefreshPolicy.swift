/// How often the client may fetch its document, and how it backs off after failures.
///
/// Defaults suit an app that refreshes at launch and on returning to the foreground: at most one fetch per
/// 30 s, then after failures full-jitter exponential backoff from 2 s up to 15 min, and a server's
/// `Retry-After` honoured up to 24 h (a longer value is assumed to be a server mistake, not a wish).
public struct RefreshPolicy: Sendable, Equatable {
    /// The least time between two fetch attempts unless forced.
    public var minimumInterval: Duration
    /// The backoff ceiling after the first failure; it doubles with each further failure.
    public var backoffBase: Duration
    /// The largest backoff ceiling.
    public var backoffCap: Duration
    /// The longest `Retry-After` honoured; longer values are shortened to this.
    public var maxRetryAfter: Duration

    /// Creates a policy. Negative durations count as zero.
    public init(minimumInterval: Duration = .seconds(30), backoffBase: Duration = .seconds(2),
                backoffCap: Duration = .seconds(900), maxRetryAfter: Duration = .seconds(86_400)) {
        self.minimumInterval = minimumInterval
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.maxRetryAfter = maxRetryAfter
    }

    /// The backoff ceiling after `failures` consecutive failures: `min(cap, base * 2^(failures-1))`, 0 for none.
    public func backoffCeiling(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let base = Self.seconds(backoffBase), cap = Self.seconds(backoffCap)
        // 2^62 seconds is beyond any cap; stop doubling before Double loses meaning.
        let ceiling = failures > 62 ? cap : min(cap, base * Double(UInt64(1) << UInt64(failures - 1)))
        return .seconds(ceiling)
    }

    /// A backoff delay with "full jitter": uniform in `0..<ceiling`, so that many installs failing at once
    /// (a server outage) do not come back in lockstep.
    public func backoffDelay(afterFailures failures: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = Self.seconds(backoffCeiling(afterFailures: failures))
        guard ceiling > 0 else { return .zero }
        // One draw, 53 random bits scaled to [0, 1): exactly one `next()` call per delay (no rejection loop),
        // so a test's fixed generator gives a predictable delay.
        let unit = Double(random.next() >> 11) * 0x1p-53
        return .seconds(unit * ceiling)
    }

    /// A duration in seconds as a `Double`, negatives as 0.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}
