import FlagKit

/// Generic typed lookups, each reading the current snapshot (for several values that must agree with each other,
/// read them from one ``FlagClient/snapshot`` instead).
extension FlagClient {
    /// A boolean flag, or `defaultValue` when it is missing or not a boolean.
    public func bool(_ key: String, default defaultValue: Bool) -> Bool { snapshot.bool(key, default: defaultValue) }
    /// A string flag, or `defaultValue`.
    public func string(_ key: String, default defaultValue: String) -> String { snapshot.string(key, default: defaultValue) }
    /// An integer flag, or `defaultValue`.
    public func integer(_ key: String, default defaultValue: Int) -> Int { snapshot.integer(key, default: defaultValue) }
    /// A number flag, or `defaultValue`.
    public func number(_ key: String, default defaultValue: Double) -> Double { snapshot.number(key, default: defaultValue) }
    /// Any flag as JSON, or `defaultValue` when it is missing.
    public func json(_ key: String, default defaultValue: JSONValue) -> JSONValue { snapshot.json(key, default: defaultValue) }

    /// A boolean flag with its evaluation details.
    public func boolDetails(_ key: String, default defaultValue: Bool) -> FlagEvaluationDetails<Bool> {
        snapshot.boolDetails(key, default: defaultValue)
    }
    /// A string flag with its evaluation details.
    public func stringDetails(_ key: String, default defaultValue: String) -> FlagEvaluationDetails<String> {
        snapshot.stringDetails(key, default: defaultValue)
    }
    /// An integer flag with its evaluation details.
    public func integerDetails(_ key: String, default defaultValue: Int) -> FlagEvaluationDetails<Int> {
        snapshot.integerDetails(key, default: defaultValue)
    }
    /// A number flag with its evaluation details.
    public func numberDetails(_ key: String, default defaultValue: Double) -> FlagEvaluationDetails<Double> {
        snapshot.numberDetails(key, default: defaultValue)
    }
    /// Any flag as JSON with its evaluation details.
    public func jsonDetails(_ key: String, default defaultValue: JSONValue) -> FlagEvaluationDetails<JSONValue> {
        snapshot.jsonDetails(key, default: defaultValue)
    }
}
