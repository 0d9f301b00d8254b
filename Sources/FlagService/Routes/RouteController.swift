import FlagKit
import FlagStore
import HTTPServer

/// One family of the API's routes (documents, changes, administration, operations, OFREP), as Hummingbird's
/// route collections are: a type that names what it depends on and adds its routes, each with its access and
/// (a write) its audit action. `FlagService.makeRouter()` builds each once and adds them in one ordered list.
protocol RouteController: Sendable {
    /// Registers the family's routes on `routes`.
    func addRoutes(to routes: inout ServiceRoutes)
}

/// What the handlers of every family read from a request and how they answer.
extension RouteController {
    /// A JSON response of `object`, canonical, with a trailing newline.
    static func json(_ object: [String: JSONValue], status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse.json(JSONValue.object(object).canonicalBytes + [0x0A], status: status, headers: headers)
    }

    /// Query parameter `name` as an integer in `range`, `fallback` when absent; 400 otherwise.
    static func integerParameter(_ request: HTTPRequest, _ name: String, default fallback: Int,
                                 range: ClosedRange<Int>) throws(ServiceError) -> Int {
        try optionalIntegerParameter(request, name, range: range) ?? fallback
    }

    /// Query parameter `name` as an integer in `range`, nil when absent; 400 otherwise.
    static func optionalIntegerParameter(_ request: HTTPRequest, _ name: String,
                                         range: ClosedRange<Int>) throws(ServiceError) -> Int? {
        guard let text = request.queryParameter(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ServiceError.badRequest("invalid_parameter",
                                          "\(name) must be an integer between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// Query parameter `name` as a boolean (`true`/`1`, `false`/`0`); false when absent, 400 otherwise.
    static func booleanParameter(_ request: HTTPRequest, _ name: String) throws(ServiceError) -> Bool {
        switch request.queryParameter(name) {
        case nil, "false", "0": return false
        case "true", "1": return true
        case let other?: throw .badRequest("invalid_parameter", "\(name) must be true or false, got '\(other)'")
        }
    }

    /// `?status=a,b`: the statuses to list (nil when absent: all); 400 `invalid_parameter` for an unknown or empty one
    /// (`?status=` and `a,,b` name no status: a filter that filters nothing is a mistake). Changes and guards alike.
    static func statusParameter<Status>(_ request: HTTPRequest, of _: Status.Type = Status.self) throws(ServiceError) -> Set<Status>?
    where Status: RawRepresentable & CaseIterable & Hashable, Status.RawValue == String {
        guard let text = request.queryParameter("status") else { return nil }
        var statuses = Set<Status>()
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let status = Status(rawValue: String(word)) else {
                throw ServiceError.badRequest("invalid_parameter", "status must be a comma-separated list of "
                    + Status.allCases.map(\.rawValue).joined(separator: ", ") + "; got '\(word)'")
            }
            statuses.insert(status)
        }
        return statuses
    }

    /// 415 unless `Content-Type` is `application/json` or `application/*+json` (a missing one is taken as JSON).
    static func requireJSONContentType(_ request: HTTPRequest) throws(ServiceError) {
        guard let value = request.headers[.contentType] else { return }
        let mediaType = HTTPHeaders.trimmed(value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]).lowercased()
        if mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) { return }
        throw ServiceError(.unsupportedMediaType, code: "unsupported_media_type",
                           message: "send Content-Type: application/json (got \(value))", headers: [.acceptPut: "application/json"])
    }

    /// Parses a JSON body: 400 for an empty body or malformed JSON (with line and column).
    static func parseJSON(_ body: [UInt8]) throws(ServiceError) -> JSONValue {
        guard !body.isEmpty else { throw .badRequest("empty_body", "the request needs a JSON body") }
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            throw .malformedJSON(error)
        }
        if !parsed.duplicateKeyPaths.isEmpty {
            throw .invalidDocument(parsed.duplicateKeyPaths.map { ValidationIssue(path: $0, message: "duplicate key") })
        }
        return parsed.value
    }

    /// `If-Match`, `If-None-Match: *`, or none.
    static func optionalPrecondition(_ request: HTTPRequest) -> WriteJob.Precondition {
        let ifMatch = request.headers.values(for: .ifMatch)
        if !ifMatch.isEmpty { return .ifMatch(ifMatch) }
        return HTTPEntityTagList.isAny(request.headers.values(for: .ifNoneMatch)) ? .ifNoneMatchAny : .none
    }

    /// The write's message: the body's `message` (rollback, schedules, decisions) or `X-Change-Message`
    /// (percent-encoded UTF-8 is decoded); 400 when missing or blank.
    static func message(_ request: HTTPRequest, body: JSONValue?) throws(ServiceError) -> String {
        var text: String?
        if let body {
            guard let string = body.stringValue else { throw .badRequest("invalid_message", "message must be a string") }
            text = string
        } else if let header = request.headers[.changeMessage] {
            text = HTTPRequest.percentDecode(header) ?? header
        }
        // Blank in the Unicode sense (no-break spaces too), without Foundation's NSString bridge.
        guard let text, !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
            throw .badRequest("message_required", "every change needs a message: send the \(APIHeader.changeMessage) header")
        }
        guard text.utf8.count <= 10_000 else { throw .badRequest("message_too_long", "the message is longer than 10000 bytes") }
        return text
    }
}

extension SnapshotStore {
    /// The `{env}` path parameter, 404 (listing the known ones) unless the environment exists.
    func requestedEnvironment(_ context: HTTPRequestContext) throws(ServiceError) -> String {
        let name = context.pathParameters["env"] ?? ""
        guard contains(name) else { throw .unknownEnvironment(name, known: environments) }
        return name
    }
}
