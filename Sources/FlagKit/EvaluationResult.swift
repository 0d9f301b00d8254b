/// Why an evaluation gave its value, in OpenFeature's words.
public enum EvaluationReason: String, Sendable, Codable, CaseIterable {
    /// The flag has no rules: its default is the value for everyone.
    case staticValue = "STATIC"
    /// A rule's cohort matched (no rollout involved).
    case targetingMatch = "TARGETING_MATCH"
    /// A rule with a rollout included the install.
    case split = "SPLIT"
    /// No rule gave a value: the default.
    case defaultValue = "DEFAULT"
    /// A prerequisite (`requires`) was not met: the default.
    case disabled = "DISABLED"
    /// The flag could not be evaluated (see the error code).
    case error = "ERROR"
}

/// Why an evaluation failed, in OpenFeature's words.
public enum EvaluationErrorCode: String, Sendable, Codable, CaseIterable {
    /// No flag with that key.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The flag's value is not of the type the caller asked for.
    case typeMismatch = "TYPE_MISMATCH"
    /// The request or document could not be parsed.
    case parseError = "PARSE_ERROR"
    /// A targeting key was required and missing.
    case targetingKeyMissing = "TARGETING_KEY_MISSING"
    /// The context is not usable.
    case invalidContext = "INVALID_CONTEXT"
    /// Anything else.
    case general = "GENERAL"
}

/// The outcome of evaluating one flag for one context.
public struct EvaluationResult: Sendable, Equatable {
    /// The flag's key.
    public let key: String
    /// The value (the flag's default when `reason` is `.error` and a default is known; else `null`).
    public let value: JSONValue
    /// `default`, or `rule-N` for the N-th rule (0-based, as in the JSON path `/rules/N`).
    public let variant: String
    /// Why this value.
    public let reason: EvaluationReason
    /// The document version the value came from, when known.
    public let version: Int?
    /// Set when `reason` is `.error`.
    public let errorCode: EvaluationErrorCode?
    /// A human-readable explanation of the error.
    public let errorMessage: String?

    /// A result with every field given.
    public init(key: String, value: JSONValue, variant: String, reason: EvaluationReason, version: Int?,
                errorCode: EvaluationErrorCode? = nil, errorMessage: String? = nil) {
        self.key = key
        self.value = value
        self.variant = variant
        self.reason = reason
        self.version = version
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// A failed evaluation.
    public static func failure(key: String, code: EvaluationErrorCode, message: String, value: JSONValue = .null,
                               version: Int? = nil) -> EvaluationResult {
        EvaluationResult(key: key, value: value, variant: "default", reason: .error, version: version,
                         errorCode: code, errorMessage: message)
    }
}
