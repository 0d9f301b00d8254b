import AppStoreNotifications

/// What a guard reads of an hourly `OutcomeReport`: per UTC hour, the watched metric's count and the two
/// exposures a rate is taken over (`started`, and `active` at the hour's end). Plain arrays, so that the simulations
/// can feed the evaluator without building notifications.
public struct HourlyOutcomes: Sendable, Equatable {
    /// The first hour's start (ms since 1970, UTC, a multiple of an hour).
    public var from: Int64
    /// The watched metric's count, one per hour.
    public var counts: [Int]
    /// `started`, one per hour.
    public var started: [Int]
    /// `active` at each hour's end.
    public var active: [Int]

    /// Hourly series starting at `from` (floored to the hour); the three arrays must have one length (the shortest counts).
    public init(from: Int64, counts: [Int], started: [Int], active: [Int]) {
        self.from = OutcomeBucket.hour.floor(from)
        let hours = min(counts.count, started.count, active.count)
        self.counts = Array(counts.prefix(hours))
        self.started = Array(started.prefix(hours))
        self.active = Array(active.prefix(hours))
    }

    /// `metric`'s series of an hourly report; nil when the report is not in hours.
    public init?(report: OutcomeReport, metric: OutcomeMetric) {
        guard report.bucket == .hour else { return nil }
        self.init(from: report.from, counts: report.series.map { $0[metric] },
                  started: report.series.map { $0[.started] }, active: report.series.map { $0[.active] })
    }

    /// The number of hours.
    public var hours: Int { counts.count }

    /// The index of the hour starting at `start`, when it is in the series.
    func index(ofHourStarting start: Int64) -> Int? {
        let (offset, overflow) = start.subtractingReportingOverflow(from)
        guard !overflow, offset >= 0, offset % OutcomeBucket.hour.milliseconds == 0 else { return nil }
        let index = Int(offset / OutcomeBucket.hour.milliseconds)
        return index < hours ? index : nil
    }
}
