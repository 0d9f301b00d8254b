import FlagKit
import FlagStore
import HTTPServer

/// How the refusals of a write route become audit lines (`docs/governance.md`, "Audit"): every route with an
/// unsafe method and a token role names, where it is registered (`ServiceRoutes.deferred(..., audit:)`), either
/// its audit action or that it is exempt and why. `ServiceRoutes.build()` refuses such a route that names
/// neither, as it refuses one without a role: a write nobody would see refused cannot be added quietly.
///
/// What a route ACCEPTS is audited where it happens, in the same transaction (the store's `publish`,
/// `change.*`, `policy.update`, `webhook.*` lines); what it refuses (any answer from 400 on) never reaches
/// the store, so the route layer writes it: `RouteAuditor`.
enum RouteAudit: Sendable, Equatable {
    /// Refusals are audit lines with this action.
    case action(String)
    /// Not audited, for the reason given (a request that changes nothing).
    case exempt(String)

    /// The action of the route's refusals, or nil when they are not audited.
    var auditedAction: String? {
        guard case .action(let name) = self else { return nil }
        return name
    }

    /// Why `method pattern` with `access` and `audit` cannot be built, or nil. Only unsafe methods with a
    /// token role or a signed payload need an audit (reads are not audited; evaluation routes change nothing).
    static func refusal(_ method: HTTPMethod, _ pattern: String, _ access: RouteAccess, audit: RouteAudit?) -> String? {
        guard access.requiresAudit, !method.isSafe, audit == nil else { return nil }
        return "\(method) \(pattern) is a write with \(access) access but no audit action (audit:)"
    }
}

extension HTTPMethod {
    /// RFC 9110 §9.2.1: GET, HEAD, OPTIONS and TRACE change nothing.
    var isSafe: Bool { self == .GET || self == .HEAD || self == .OPTIONS || self == .TRACE }
}

/// Writes the audit line of a refused request to an audited route: hands it to the writer, which commits it
/// with its next group commit (no fsync of its own), bounded in memory (`WriteQueue.recordAudit`).
struct RouteAuditor: Sendable {
    /// The route's action (`publish`, `webhook.create`, ...).
    let action: String
    /// Where lines go.
    let writer: WriteQueue
    /// The client's address as the throttle and the logs see it.
    let routeGuard: RouteGuard

    /// Records `response` when it refuses (400 and up; 5xx is `failed`). A 429 of the failed-authentication
    /// throttle is not one line per request (an attacker could fill the disk): it is counted in `/metrics`.
    /// A dry run (`?dryRun=true`) publishes nothing, like a preview, and is not a write attempt.
    func record(_ response: HTTPResponse, actor: String?, _ request: HTTPRequest, _ context: HTTPRequestContext) {
        let status = response.status.code
        guard status >= 400, (try? RouteAccess.dryRun(request)) != true else { return }
        guard status != HTTPStatus.tooManyRequests.code else {
            writer.metrics.auditThrottled.add(1, ordering: .relaxed)
            return
        }
        let parameters = context.pathParameters
        writer.recordAudit(AuditRecord(
            actor: actor ?? "-", action: action, environment: parameters["env"], target: parameters["key"] ?? parameters["id"] ?? parameters["name"],
            outcome: status >= 500 ? .failed : .refused, status: status, reason: Self.reason(response),
            client: routeGuard.clientAddress(request, context), atMilliseconds: ServiceMetrics.wallMilliseconds()))
    }

    /// `code: message` of the API's error body, or the status's reason phrase when the body is not one.
    static func reason(_ response: HTTPResponse) -> String {
        if let error = (try? JSONParser.parse(response.body))?.value.objectValue?["error"]?.objectValue,
           let code = error["code"]?.stringValue {
            return code + (error["message"]?.stringValue.map { ": " + $0 } ?? "")
        }
        return "HTTP \(response.status.code)"
    }
}
