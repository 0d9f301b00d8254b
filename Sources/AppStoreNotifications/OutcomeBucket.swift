/// The width of one step of an `OutcomeReport`: a UTC hour or a UTC day. Times are milliseconds since 1970 (UTC),
/// which has no leap seconds, so a UTC day is exactly 86,400,000 ms and its start a multiple of it.
public enum OutcomeBucket: String, Sendable, CaseIterable {
    /// One UTC hour.
    case hour
    /// One UTC day (midnight to midnight, UTC).
    case day

    /// The bucket's length in milliseconds.
    public var milliseconds: Int64 {
        switch self {
        case .hour: 3_600_000
        case .day: 86_400_000
        }
    }

    /// The start of the bucket holding `time`: `time` rounded down to a multiple of `milliseconds` (also before 1970).
    public func floor(_ time: Int64) -> Int64 {
        let remainder = time % milliseconds
        return remainder < 0 ? time - remainder - milliseconds : time - remainder
    }

    /// `time` rounded up to a bucket boundary: `time` itself when it is one. Times within one bucket of `Int64.max`
    /// round down instead (no boundary above them fits in 64 bits).
    public func ceil(_ time: Int64) -> Int64 {
        let floored = floor(time)
        guard floored != time else { return time }
        let (next, overflow) = floored.addingReportingOverflow(milliseconds)
        return overflow ? floored : next
    }
}
