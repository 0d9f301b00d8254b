/// A typed flag value with the evaluation that produced it (OpenFeature's "details").
///
/// When the flag is missing (`FLAG_NOT_FOUND`) or its value is not of the requested Swift type (`TYPE_MISMATCH`),
/// `value` is the caller's default and `result.reason` is `ERROR` with the error code and a message.
public struct FlagEvaluationDetails<Value: Sendable>: Sendable {
    /// The value to use.
    public let value: Value
    /// The evaluation: variant, reason, document version, error code and message.
    public let result: EvaluationResult

    /// Creates details.
    public init(value: Value, result: EvaluationResult) {
        self.value = value
        self.result = result
    }

    /// The flag's key.
    public var key: String { result.key }
    /// `default` or `rule-N`.
    public var variant: String { result.variant }
    /// Why this value.
    public var reason: EvaluationReason { result.reason }
    /// Set when `reason` is `ERROR`.
    public var errorCode: EvaluationErrorCode? { result.errorCode }
    /// Whether `value` is the caller's default (the flag is missing or of another type: reason `ERROR`) rather than a
    /// value the document gave, which may be the document's own default (variant `default`, reason `DEFAULT`).
    public var isCallerDefault: Bool { result.reason == .error }
    /// The document version the value came from (`nil` for the safe defaults).
    public var version: Int? { result.version }
}

extension FlagEvaluationDetails: Equatable where Value: Equatable {}
