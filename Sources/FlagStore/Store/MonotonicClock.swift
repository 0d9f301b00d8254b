import Glibc

/// The monotonic clock and `Duration` in nanoseconds, for deadlines that must not move with the wall clock: the
/// PostgreSQL connect back-off, `StoreListener`'s wait, and (through `package`) FlagService's cluster sync and metrics.
package enum MonotonicClock {
    /// CLOCK_MONOTONIC in nanoseconds.
    package static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `duration` in nanoseconds, negative as 0.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
