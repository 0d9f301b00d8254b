import FlagKit
import FlagStore
import HTTPServer

/// `GET /v1/audit`: the audit log, newest first, filtered and paged (`docs/api.md`, "Audit").
///
/// An unscoped admin token only: the log spans environments and holds token, webhook and policy changes,
/// so a token limited to some environments is refused (`RouteAccess.unscoped`) rather than shown a part.
extension AdministrationController {
    func addAudit(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/audit", access: .unscoped(.admin)) { [self] request, _, _, _ in
            let query = try Self.auditQuery(request)
            let page: AuditPage
            do {
                page = try store.auditEntries(query: query)
            } catch {
                throw ServiceError.store(error)
            }
            return Self.json(["entries": .array(page.entries.map(Self.json)), "next": page.next.map { .integer($0) } ?? .null],
                             headers: [.cacheControl: "no-store"])
        }
    }

    /// The query's parameters, each checked: `400 invalid_parameter` naming the one that is wrong.
    static func auditQuery(_ request: HTTPRequest) throws(ServiceError) -> AuditQuery {
        var query = AuditQuery()
        query.environment = try textParameter(request, "env")
        query.actor = try textParameter(request, "actor")
        query.action = try textParameter(request, "action")
        query.sinceMilliseconds = try timeParameter(request, "since")
        query.untilMilliseconds = try timeParameter(request, "until")
        if let text = request.queryParameter("outcome") {
            guard let outcome = AuditOutcome(rawValue: text) else {
                throw .badRequest("invalid_parameter", "outcome must be ok, refused or failed, got '\(text)'")
            }
            query.outcome = outcome
        }
        query.limit = try integerParameter(request, "limit", default: 100, range: AuditQuery.limitRange)
        query.before = try optionalIntegerParameter(request, "before", range: 1...Int.max).map(Int64.init)
        return query
    }

    /// A filter's text: absent is no filter; empty or longer than any stored value is refused.
    private static func textParameter(_ request: HTTPRequest, _ name: String) throws(ServiceError) -> String? {
        guard let text = request.queryParameter(name) else { return nil }
        guard !text.isEmpty, text.utf8.count <= 200 else {
            throw .badRequest("invalid_parameter", "\(name) must be 1 to 200 bytes")
        }
        return text
    }

    /// An RFC 3339 time with an offset (`2027-03-01T00:00:00Z`, `...+01:00`), as milliseconds.
    private static func timeParameter(_ request: HTTPRequest, _ name: String) throws(ServiceError) -> Int64? {
        guard let text = request.queryParameter(name) else { return nil }
        do {
            return try RFC3339.milliseconds(parsing: text)
        } catch {
            throw .badRequest("invalid_parameter", "\(name) must be an RFC 3339 time with an offset (2027-03-01T00:00:00Z), got '\(text)'")
        }
    }

    /// One line as the API shows it; every member present (`null` when absent), times in RFC 3339 UTC.
    static func json(_ entry: AuditEntry) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        return .object([
            "id": .integer(entry.id), "at": .string(RFC3339.string(milliseconds: entry.atMilliseconds)), "actor": .string(entry.actor),
            "action": .string(entry.action), "environment": text(entry.environment), "target": text(entry.target),
            "outcome": .string(entry.outcome.rawValue), "status": integer(entry.status), "reason": text(entry.reason),
            "client": text(entry.client), "version": integer(entry.version), "detail": .string(entry.detail),
        ])
    }
}
