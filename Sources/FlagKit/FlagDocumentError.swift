/// One problem in a flag document, at a JSON pointer.
public struct ValidationIssue: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Where: an RFC 6901 JSON pointer (`/flags/premiumFeaturesLocked/rules/1/rollout`), `""` for the whole document.
    public let path: String
    /// What is wrong, in words an operator understands.
    public let message: String

    /// An issue at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `/flags/x/rules/1/rollout: must be between 0 and 100 (got 140)`.
    public var description: String { "\(path.isEmpty ? "/" : path): \(message)" }
}

/// Why bytes are not a valid flag document: the JSON is malformed, or the document breaks rules
/// (every broken rule is listed, each with its path).
public enum FlagDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not well-formed JSON, with line and column.
    case malformedJSON(JSONSyntaxError)
    /// Well-formed JSON that is not a valid document.
    case invalid([ValidationIssue])

    /// Every problem, one per line.
    public var description: String {
        switch self {
        case .malformedJSON(let error): "malformed JSON at \(error)"
        case .invalid(let issues): issues.map(\.description).joined(separator: "\n")
        }
    }

    /// The problems as issues (a syntax error becomes one issue at the root).
    public var issues: [ValidationIssue] {
        switch self {
        case .malformedJSON(let error): [ValidationIssue(path: "", message: "malformed JSON at \(error)")]
        case .invalid(let issues): issues
        }
    }
}
