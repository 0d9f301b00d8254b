/// Generic typed lookups for any flag, OpenFeature style: a value with a caller-supplied default, and the same
/// with its evaluation details. A missing flag or a value of another type gives the default, never a crash.
extension EvaluatedFlags {
    /// A boolean flag, or `defaultValue`.
    public func bool(_ key: String, default defaultValue: Bool) -> Bool {
        boolDetails(key, default: defaultValue).value
    }

    /// A string flag, or `defaultValue`.
    public func string(_ key: String, default defaultValue: String) -> String {
        stringDetails(key, default: defaultValue).value
    }

    /// An integer flag, or `defaultValue`.
    public func integer(_ key: String, default defaultValue: Int) -> Int {
        integerDetails(key, default: defaultValue).value
    }

    /// A number flag (integers included), or `defaultValue`.
    public func number(_ key: String, default defaultValue: Double) -> Double {
        numberDetails(key, default: defaultValue).value
    }

    /// Any flag as JSON, or `defaultValue` when it is missing.
    public func json(_ key: String, default defaultValue: JSONValue) -> JSONValue {
        jsonDetails(key, default: defaultValue).value
    }

    /// A boolean flag with its evaluation details.
    public func boolDetails(_ key: String, default defaultValue: Bool) -> FlagEvaluationDetails<Bool> {
        details(key, default: defaultValue, expected: "boolean", json: JSONValue.bool) { $0.boolValue }
    }

    /// A string flag with its evaluation details.
    public func stringDetails(_ key: String, default defaultValue: String) -> FlagEvaluationDetails<String> {
        details(key, default: defaultValue, expected: "string", json: JSONValue.string) { $0.stringValue }
    }

    /// An integer flag with its evaluation details. A value that does not fit `Int` is a type mismatch.
    public func integerDetails(_ key: String, default defaultValue: Int) -> FlagEvaluationDetails<Int> {
        details(key, default: defaultValue, expected: "integer", json: { .integer(Int64($0)) }) {
            $0.integerValue.flatMap { Int(exactly: $0) }
        }
    }

    /// A number flag with its evaluation details; integer values are numbers too.
    public func numberDetails(_ key: String, default defaultValue: Double) -> FlagEvaluationDetails<Double> {
        details(key, default: defaultValue, expected: "number", json: JSONValue.numeric) { $0.doubleValue }
    }

    /// Any flag as JSON with its evaluation details (only a missing flag gives the default).
    public func jsonDetails(_ key: String, default defaultValue: JSONValue) -> FlagEvaluationDetails<JSONValue> {
        details(key, default: defaultValue, expected: "json", json: { $0 }) { $0 }
    }

    /// The evaluated value converted by `extract`; the default with reason `ERROR` when the flag is missing
    /// (FlagKit's `FLAG_NOT_FOUND`) or `extract` refuses the value (`TYPE_MISMATCH`).
    private func details<Value>(_ key: String, default defaultValue: Value, expected: String,
                                json: (Value) -> JSONValue, extract: (JSONValue) -> Value?) -> FlagEvaluationDetails<Value> {
        let result = result(key)
        if result.reason == .error {
            let failed = EvaluationResult(key: key, value: json(defaultValue), variant: result.variant, reason: .error,
                                          version: result.version, errorCode: result.errorCode ?? .general,
                                          errorMessage: result.errorMessage)
            return FlagEvaluationDetails(value: defaultValue, result: failed)
        }
        guard let value = extract(result.value) else {
            let mismatch = EvaluationResult.failure(
                key: key, code: .typeMismatch,
                message: "flag \"\(key)\" has a \(result.value.typeName) value, not \(expected)",
                value: json(defaultValue), version: result.version)
            return FlagEvaluationDetails(value: defaultValue, result: mismatch)
        }
        return FlagEvaluationDetails(value: value, result: result)
    }
}
