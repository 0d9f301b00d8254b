import FlagKit
import FlagStore
import HTTPServer

/// A refusal of the flag API, rendered as `{"error": {"code", "message", "details"?}}` with the right status.
///
/// Unlike `HTTPError` it can carry `details` (one entry per validation issue with its JSON pointer) and
/// arbitrary extra members (`line`/`column` for malformed JSON, `known` environments for a 404).
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    /// The status sent.
    public var status: HTTPStatus
    /// A stable machine-readable code (`invalid_document`, `precondition_failed`, ...).
    public var code: String
    /// A sentence for people.
    public var message: String
    /// `[{"path": ..., "message": ...}]` for validation failures; empty otherwise.
    public var details: [ValidationIssue]
    /// Extra members of the `error` object.
    public var extra: [String: JSONValue]
    /// Extra headers (`WWW-Authenticate`, `Allow`, `ETag`).
    public var headers: HTTPHeaders
    /// The name of the token refused for its role or scope (a 403), for the refusal's audit line; never sent.
    var actor: String?

    /// A refusal.
    public init(_ status: HTTPStatus, code: String, message: String, details: [ValidationIssue] = [],
                extra: [String: JSONValue] = [:], headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.extra = extra
        self.headers = headers
    }

    /// `"412 precondition_failed: ..."`
    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON response.
    public var response: HTTPResponse {
        var error: [String: JSONValue] = extra
        error["code"] = .string(code)
        error["message"] = .string(message)
        if !details.isEmpty {
            error["details"] = .array(details.map { .object(["path": .string($0.path), "message": .string($0.message)]) })
        }
        return HTTPResponse.json(JSONValue.object(["error": .object(error)]).canonicalBytes + [0x0A],
                                 status: status, headers: headers)
    }

    // MARK: Common refusals

    /// 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3).
    static func unauthorized(_ message: String, invalidToken: Bool) -> ServiceError {
        let challenge = invalidToken ? #"Bearer realm="flagserver", error="invalid_token""# : #"Bearer realm="flagserver""#
        return ServiceError(.unauthorized, code: "unauthorized", message: message, headers: [.wwwAuthenticate: challenge])
    }

    /// 403 for a token whose role is too low.
    static func forbidden(role: TokenRole, needed: TokenRole, actor: String? = nil) -> ServiceError {
        var error = ServiceError(.forbidden, code: "forbidden",
                                 message: "this token has role \(role.rawValue); this needs \(needed.rawValue)")
        error.actor = actor
        return error
    }

    /// 404 for an unknown environment, listing the known ones.
    static func unknownEnvironment(_ name: String, known: [String]) -> ServiceError {
        ServiceError(.notFound, code: "unknown_environment",
                     message: "unknown environment '\(name)'; known: \(known.joined(separator: ", "))",
                     extra: ["known": .array(known.map { .string($0) })])
    }

    /// 400 for bytes that are not JSON, with line and column.
    static func malformedJSON(_ error: JSONSyntaxError) -> ServiceError {
        ServiceError(.badRequest, code: "malformed_json", message: "malformed JSON at \(error)",
                     extra: ["line": .integer(Int64(error.line)), "column": .integer(Int64(error.column))])
    }

    /// 422 listing every validation issue.
    static func invalidDocument(_ issues: [ValidationIssue]) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_document",
                     message: "the document has \(issues.count) problem\(issues.count == 1 ? "" : "s")", details: issues)
    }

    /// 400/422 from decoding a flag document.
    static func document(_ error: FlagDocumentError) -> ServiceError {
        switch error {
        case .malformedJSON(let syntax): malformedJSON(syntax)
        case .invalid(let issues): invalidDocument(issues)
        }
    }

    /// 400 for a request that is well-formed HTTP but not what the endpoint takes.
    static func badRequest(_ code: String, _ message: String) -> ServiceError {
        ServiceError(.badRequest, code: code, message: message)
    }

    /// Maps a store failure to a status: 404, 412, 503, 400, otherwise 500 (the cause is logged, not sent).
    /// `503 busy`: other nodes committed first through every rebase of a write without `If-Match` (which did not ask
    /// for a 412), so nothing was written and the client is told to retry.
    static func othersKeptWriting(_ environment: String) -> ServiceError {
        ServiceError(.serviceUnavailable, code: "busy", message: "other nodes kept writing \(environment) first; retry shortly",
                     headers: [.retryAfter: "1"])
    }

    /// Runs a store call, mapping its failure to the API's (`ServiceError.store`: a missing change or guard is 404); a
    /// `ServiceError` thrown inside passes as it is.
    static func storing<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.store(error)
        }
    }

    static func store(_ error: any Error) -> ServiceError {
        guard let error = error as? FlagStoreError else {
            return ServiceError(.internalServerError, code: "internal", message: "internal error")
        }
        switch error {
        case .unknownEnvironment(let name, let known):
            return unknownEnvironment(name, known: known)
        case .versionNotFound(let environment, let number):
            return ServiceError(.notFound, code: "version_not_found", message: "\(environment) has no version \(number)")
        case .changeNotFound(let id):
            return ServiceError(.notFound, code: "change_not_found", message: "there is no change \(id)")
        case .versionConflict(let environment, let expected, let current):
            return ServiceError(.preconditionFailed, code: "precondition_failed",
                                message: "\(environment) changed: expected version \(expected), current is \(current)",
                                extra: ["currentVersion": .integer(Int64(current))])
        case .webhookNotFound(let id):
            return ServiceError(.notFound, code: "webhook_not_found", message: "there is no webhook \(id)")
        case .guardNotFound(let id):
            return ServiceError(.notFound, code: "guard_not_found", message: "there is no guard \(id)")
        case .busy:
            return ServiceError(.serviceUnavailable, code: "busy", message: "the database is busy; retry shortly",
                                headers: [.retryAfter: "1"])
        case .unavailable:
            return ServiceError(.serviceUnavailable, code: "database_unavailable",
                                message: "the database is unavailable; reads are served from memory, retry writes shortly",
                                headers: [.retryAfter: "1"])
        case .invalidArgument(let name, let reason):
            return badRequest("invalid_argument", "\(name): \(reason)")
        case .damagedVersion(let environment, let number, _, _):
            // Named, so a rollback to it says which version cannot be used; the hashes are in the log.
            return ServiceError(.internalServerError, code: "damaged_version",
                                message: "version \(number) of \(environment) is damaged in the store (its bytes do not match "
                                    + "its contentHash); it is not served and cannot be republished",
                                extra: ["version": .integer(Int64(number))])
        default:
            return ServiceError(.internalServerError, code: "storage_error", message: "the store failed; see the server log")
        }
    }
}
