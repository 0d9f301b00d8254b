/// One number per `OutcomeMetric`: the counts of one bucket, of one group's bucket, or of a whole range.
public struct OutcomeCounts: Sendable, Equatable, Hashable {
    private var values: [Int]

    /// Every count zero.
    public init() {
        values = Array(repeating: 0, count: OutcomeMetric.allCases.count)
    }

    /// The count of `metric`.
    public subscript(metric: OutcomeMetric) -> Int {
        get { values[metric.index] }
        set { values[metric.index] = newValue }
    }

    /// Whether every count is zero.
    public var isZero: Bool { values.allSatisfy { $0 == 0 } }

    /// Every metric with its count, in `OutcomeMetric.allCases` order.
    public var all: [(metric: OutcomeMetric, count: Int)] {
        OutcomeMetric.allCases.map { ($0, values[$0.index]) }
    }
}
