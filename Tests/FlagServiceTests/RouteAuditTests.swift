import FlagKit
import FlagServiceTestSupport
import HTTPServer
import Testing
@testable import FlagService

/// Which routes must declare an audit action, what the governance routes declare, and how a refusal reads.
@Suite struct RouteAuditTests {
    @Test func onlyWritesWithATokenRoleNeedAnAudit() {
        #expect(RouteAudit.refusal(.PUT, "/v1/other", .token(.writer), audit: nil)?.contains("no audit action") == true)
        #expect(RouteAudit.refusal(.DELETE, "/v1/other", .unscoped(.admin), audit: nil) != nil)
        #expect(RouteAudit.refusal(.POST, "/v1/other", .write(.writer, dryRun: .reader), audit: nil) != nil)
        #expect(RouteAudit.refusal(.PUT, "/v1/things/{id}", .token(.writer), audit: .action("thing.put")) == nil)
        #expect(RouteAudit.refusal(.POST, "/v1/peek", .token(.reader), audit: .exempt("reads only")) == nil, "exempt on purpose")
        #expect(RouteAudit.refusal(.GET, "/v1/other", .token(.admin), audit: nil) == nil, "reads are not audited")
        #expect(RouteAudit.refusal(.POST, "/v1/other", .evaluation, audit: nil) == nil, "evaluations change nothing")
        #expect(RouteAudit.refusal(.POST, "/v1/hook", .signedPayload, audit: nil) != nil, "a signed payload stores what it carries")
        #expect(RouteAudit.refusal(.POST, "/v1/hook", .signedPayload, audit: .exempt("logged instead")) == nil)
    }

    @Test func theActionIsTheDeclaredOneAndExemptRoutesHaveNone() throws {
        #expect(RouteAudit.action("thing.put").auditedAction == "thing.put")
        #expect(RouteAudit.exempt("reads only").auditedAction == nil)
        // A route registered without an audit (a read) has none to record.
        let audit = try FlagServiceRouteTableTests.withService { service -> RouteAudit? in
            let router = try service.makeRouter()
            return (router.handler(.GET, "/v1/environments/{env}/versions") as? any GuardedRoute)?.audit
        }
        #expect(audit == nil)
    }

    @Test func theGovernanceRoutesHaveTheDesignsActions() throws {
        // docs/governance.md, "Audit": the other half's routes are named here so they are audited when they land.
        let expected: [String: String] = [
            "POST /v1/environments/{env}/schedules": "change.schedule", "DELETE /v1/changes/{id}": "change.cancel",
            "POST /v1/changes/{id}/approve": "change.approve", "POST /v1/changes/{id}/reject": "change.reject",
            "PUT /v1/environments/{env}/policy": "policy.update", "POST /v1/webhooks": "webhook.create",
            "DELETE /v1/webhooks/{id}": "webhook.delete", "PUT /v1/environments/{env}/document": "publish",
            "PUT /v1/environments/{env}/flags/{key}": "publish", "POST /v1/environments/{env}/rollback": "publish",
            "POST /v1/tokens": "token.create", "DELETE /v1/tokens/{name}": "token.revoke",
            "POST /v1/environments/{env}/guards": "guard.add", "DELETE /v1/guards/{id}": "guard.remove",
            "POST /v1/guards/{id}/override": "guard.override",
        ]
        let declared = try FlagServiceRouteTableTests.withService { try FlagServiceRouteTableTests.audits($0.makeRouter()) }
        for (route, action) in expected { #expect(declared[route] == .action(action), "\(route)") }
        #expect(Set(declared.keys) == Set(expected.keys).union(["POST /v1/environments/{env}/preview", "POST /v1/appstore/notifications",
                                                                 "POST /v1/environments/{env}/offer-signatures"]))
        // Apple's notifications are logged and counted, never audit lines (anyone may post one).
        if case .action? = declared["POST /v1/appstore/notifications"] { Issue.record("the receiver must be exempt") }
        // An offer signature changes nothing (a read with a body): counted, not audited.
        if case .action? = declared["POST /v1/environments/{env}/offer-signatures"] { Issue.record("offer signatures must be exempt") }
    }

    @Test func theReasonIsTheErrorsCodeAndMessage() {
        let refusal = ServiceError(.preconditionFailed, code: "precondition_failed", message: "If-Match does not match").response
        #expect(RouteAuditor.reason(refusal) == "precondition_failed: If-Match does not match")
        #expect(RouteAuditor.reason(HTTPResponse.text("no", status: HTTPStatus(code: 502))) == "HTTP 502", "a body that is not the API's error")
        #expect(RouteAuditor.reason(HTTPResponse.json(Array(#"{"error":{"code":"x"}}"#.utf8), status: .badRequest)) == "x")
    }

    @Test func safeMethodsAreRFC9110s() {
        let safe: [HTTPMethod] = [.GET, .HEAD, .OPTIONS, .TRACE]
        let unsafe: [HTTPMethod] = [.POST, .PUT, .PATCH, .DELETE]
        #expect(safe.map(\.isSafe) == [true, true, true, true])
        #expect(unsafe.map(\.isSafe) == [false, false, false, false])
    }
}
