/// One problem in a flag document, at a JSON pointer.
public struct ValidationIssue: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Where: an RFC 6901 JSON pointer (`/flags/checkoutEnabled/rules/1/rollout`), `""` for the whole document.
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

extension FlagDocumentError {
    /// Parses `bytes` strictly and hands the value to `validate`: the one way FlagKit's JSON formats (documents,
    /// change sets, policies) are read from bytes. Malformed text is `.malformedJSON` with line and column;
    /// duplicate keys are reported as issues at their paths, listed before `validate`'s own, so one answer names
    /// every problem instead of the first.
    public static func decoding<Bytes: Sequence, Value>(
        _ bytes: Bytes, _ validate: (JSONValue) throws(FlagDocumentError) -> Value
    ) throws(FlagDocumentError) -> Value where Bytes.Element == UInt8 {
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw .malformedJSON(error)
        }
        let duplicates = parsed.duplicateKeyPaths.map { ValidationIssue(path: $0, message: "duplicate key") }
        let value: Value
        do {
            value = try validate(parsed.value)
        } catch {
            throw .invalid(duplicates + error.issues)
        }
        guard duplicates.isEmpty else { throw .invalid(duplicates) }
        return value
    }
}
