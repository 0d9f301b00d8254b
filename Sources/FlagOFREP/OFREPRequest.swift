import FlagKit

/// A parsed OFREP request body (`evaluationRequest` / `bulkEvaluationRequest`: `{"context": {...}}`).
///
/// The context maps onto FlagKit's `EvaluationContext`: `targetingKey` is the install id, the
/// built-in attributes (`appVersion`, `osVersion`, `platform`, `locale`, `country`, `channel`, `firstInstallDate`
/// (an RFC 3339 date-time) and `installId` itself) must be strings, and everything else becomes a custom attribute of any JSON type.
public struct OFREPRequest: Sendable, Equatable {
    /// The evaluation context.
    public let context: EvaluationContext
    /// The `context` member as sent (an object).
    public let contextValue: JSONValue

    /// The context in canonical JSON: two requests with equal contexts get equal bytes, whatever the
    /// member order or whitespace, so bulk `ETag`s do not depend on how a client serializes.
    /// Computed on demand: only the bulk endpoint needs it.
    public var canonicalContext: [UInt8] { contextValue.canonicalBytes }

    /// Parses a request body, or says why it is refused:
    /// - `PARSE_ERROR`: empty body, not JSON (with line and column), duplicate member names, not an object;
    /// - `INVALID_CONTEXT`: no `context` member, a `context` that is not an object, a `targetingKey`
    ///   or built-in attribute that is not a string, a `firstInstallDate` that is not an RFC 3339 date-time.
    ///
    /// An empty or absent `targetingKey` is not refused here: whether a flag needs one is decided per
    /// flag (`OFREPEvaluator.needsTargetingKey`), see `docs/ofrep.md`.
    public static func parse(_ body: [UInt8]) -> Result<OFREPRequest, OFREPFailure> {
        guard body.contains(where: { !Self.isWhitespace($0) }) else {
            return .failure(OFREPFailure(.parseError, #"empty request body: expected {"context": {...}}"#))
        }
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            return .failure(OFREPFailure(.parseError, "request body is not JSON: \(error)"))
        }
        if let path = parsed.duplicateKeyPaths.first {
            return .failure(OFREPFailure(.parseError, "duplicate member name at \(path)"))
        }
        guard case .object(let members) = parsed.value else {
            return .failure(OFREPFailure(.parseError, "request body must be a JSON object, not \(parsed.value.typeName)"))
        }
        guard let contextValue = members["context"] else {
            return .failure(OFREPFailure(.invalidContext, "request body has no /context member"))
        }
        guard case .object(let attributes) = contextValue else {
            return .failure(OFREPFailure(.invalidContext, "/context must be an object, not \(contextValue.typeName)"))
        }
        for name in stringAttributes {
            if let value = attributes[name], value.stringValue == nil {
                return .failure(OFREPFailure(.invalidContext, "/context/\(name) must be a string, not \(value.typeName)"))
            }
        }
        // An install date the caller cannot send correctly is a caller's bug: said, not evaluated as "unknown".
        for attribute in BuiltInAttribute.allCases where attribute.isInstant {
            if let value = attributes[attribute.rawValue], let problem = attribute.problem(with: value) {
                return .failure(OFREPFailure(.invalidContext, "/context/\(attribute.rawValue) \(problem)"))
            }
        }
        if let key = attributes["targetingKey"]?.stringValue, let id = attributes["installId"]?.stringValue, key != id {
            return .failure(OFREPFailure(
                .invalidContext, "/context/targetingKey and /context/installId differ; send the install id as targetingKey"))
        }
        var context = EvaluationContext(attributes: attributes)
        // An empty key identifies nobody: bucketing "" would put every such client in the same bucket.
        if context.installId?.isEmpty == true { context.installId = nil }
        return .success(OFREPRequest(context: context, contextValue: contextValue))
    }

    /// The members that must be strings when present.
    private static let stringAttributes = [BuiltInAttribute.targetingKeyName] + EvaluationContext.builtInAttributes

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
