import AppStoreNotifications

/// The stored JSON shape (`GuardRule`'s documentation, docs/guards.md): flat, with `baseline` a string and
/// `threshold` beside it for a floor or ceiling. Decoding validates; its errors are `GuardRuleError`s naming the field.
extension GuardRule: Codable {
    private enum Key: String, CodingKey {
        case metric, measure, baseline, threshold, minimumCount, windowHours, action, alpha, minimumRelativeChange
    }

    /// Decodes and validates a rule; a missing optional field takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let metricName = try Self.field(.metric) { try container.decode(String.self, forKey: .metric) }
        guard let metric = OutcomeMetric(rawValue: metricName) else {
            throw GuardRuleError(field: "metric", message: "unknown metric \(metricName)")
        }
        let measureName = try Self.field(.measure) { try container.decodeIfPresent(String.self, forKey: .measure) } ?? "perHour"
        guard let measure = GuardMeasure(rawValue: measureName) else {
            throw GuardRuleError(field: "measure", message: "must be perHour, perStarted or perActive")
        }
        let threshold = try Self.field(.threshold) { try container.decodeIfPresent(Double.self, forKey: .threshold) }
        let baselineName = try Self.field(.baseline) { try container.decodeIfPresent(String.self, forKey: .baseline) } ?? "previousWeek"
        let baseline: GuardBaseline
        switch (baselineName, threshold) {
        case ("previousWeek", nil): baseline = .previousWeek
        case ("previousWeek", _?): throw GuardRuleError(field: "threshold", message: "only a floor or ceiling has a threshold")
        case ("floor", let value?): baseline = .floor(value)
        case ("ceiling", let value?): baseline = .ceiling(value)
        case ("floor", nil), ("ceiling", nil): throw GuardRuleError(field: "threshold", message: "a \(baselineName) needs a threshold")
        default: throw GuardRuleError(field: "baseline", message: "must be previousWeek, floor or ceiling")
        }
        let actionName = try Self.field(.action) { try container.decode(String.self, forKey: .action) }
        guard let action = GuardAction(rawValue: actionName) else {
            throw GuardRuleError(field: "action", message: "must be notify, pauseSchedules or rollback")
        }
        try self.init(
            metric: metric, measure: measure, baseline: baseline,
            minimumCount: Self.field(.minimumCount) { try container.decodeIfPresent(Int.self, forKey: .minimumCount) } ?? Self.defaultMinimumCount,
            windowHours: Self.field(.windowHours) { try container.decodeIfPresent(Int.self, forKey: .windowHours) } ?? Self.defaultWindowHours,
            action: action,
            alpha: Self.field(.alpha) { try container.decodeIfPresent(Double.self, forKey: .alpha) } ?? Self.defaultAlpha,
            minimumRelativeChange: Self.field(.minimumRelativeChange) {
                try container.decodeIfPresent(Double.self, forKey: .minimumRelativeChange)
            } ?? Self.defaultMinimumRelativeChange)
    }

    /// Every field, defaults included, so a stored rule reads the same after the defaults change.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(metric.rawValue, forKey: .metric)
        try container.encode(measure.rawValue, forKey: .measure)
        switch baseline {
        case .previousWeek: try container.encode("previousWeek", forKey: .baseline)
        case .floor(let value):
            try container.encode("floor", forKey: .baseline)
            try container.encode(value, forKey: .threshold)
        case .ceiling(let value):
            try container.encode("ceiling", forKey: .baseline)
            try container.encode(value, forKey: .threshold)
        }
        try container.encode(minimumCount, forKey: .minimumCount)
        try container.encode(windowHours, forKey: .windowHours)
        try container.encode(action.rawValue, forKey: .action)
        try container.encode(alpha, forKey: .alpha)
        try container.encode(minimumRelativeChange, forKey: .minimumRelativeChange)
    }

    /// Runs one field's decoding, turning a missing or mistyped value into a `GuardRuleError` naming it.
    private static func field<T>(_ key: Key, _ decode: () throws -> T) throws(GuardRuleError) -> T {
        do {
            return try decode()
        } catch DecodingError.keyNotFound(_, _) {
            throw GuardRuleError(field: key.rawValue, message: "is required")
        } catch {
            throw GuardRuleError(field: key.rawValue, message: "has the wrong type")
        }
    }
}
