import FlagKit

/// A refusal of an OFREP request or of one flag's evaluation, in the protocol's words.
///
/// `code` is an OpenFeature error code (`PARSE_ERROR`, `INVALID_CONTEXT`, `TARGETING_KEY_MISSING`,
/// `FLAG_NOT_FOUND`, `GENERAL`); `details` is the human-readable `errorDetails`, which names the
/// offending JSON path where there is one.
public struct OFREPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The OpenFeature error code.
    public let code: EvaluationErrorCode
    /// What was wrong, for logs and developers.
    public let details: String

    /// A failure with a code and details.
    public init(_ code: EvaluationErrorCode, _ details: String) {
        self.code = code
        self.details = details
    }

    /// The HTTP status the spec gives this code on the single-flag endpoint: 404 for
    /// `FLAG_NOT_FOUND`, 500 for `GENERAL`, 400 for the rest.
    public var status: Int {
        switch code {
        case .flagNotFound: 404
        case .general: 500
        default: 400
        }
    }

    /// `"PARSE_ERROR: ..."`
    public var description: String { "\(code.rawValue): \(details)" }
}
