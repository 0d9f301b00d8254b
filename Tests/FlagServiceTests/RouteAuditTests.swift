import FlagKit
import HTTPServer
import Testing
@testable import FlagService

/// Which routes must name an audit action, what the governance table names, and how a refusal reads.
@Suite struct RouteAuditTests {
    static let table: [String: RouteAudit] = ["PUT /v1/things/{id}": .action("thing.put"), "POST /v1/peek": .exempt("reads only")]

    @Test func onlyWritesWithATokenRoleNeedAnEntry() {
        #expect(RouteAudit.refusal(.PUT, "/v1/other", .token(.writer), table: Self.table)?.contains("no audit action") == true)
        #expect(RouteAudit.refusal(.DELETE, "/v1/other", .unscoped(.admin), table: Self.table) != nil)
        #expect(RouteAudit.refusal(.POST, "/v1/other", .write(.writer, dryRun: .reader), table: Self.table) != nil)
        #expect(RouteAudit.refusal(.PUT, "/v1/things/{id}", .token(.writer), table: Self.table) == nil)
        #expect(RouteAudit.refusal(.POST, "/v1/peek", .token(.reader), table: Self.table) == nil, "exempt on purpose")
        #expect(RouteAudit.refusal(.GET, "/v1/other", .token(.admin), table: Self.table) == nil, "reads are not audited")
        #expect(RouteAudit.refusal(.POST, "/v1/other", .evaluation, table: Self.table) == nil, "evaluations change nothing")
    }

    @Test func theActionIsTheTablesAndExemptRoutesHaveNone() {
        #expect(RouteAudit.action(.PUT, "/v1/things/{id}", table: Self.table) == "thing.put")
        #expect(RouteAudit.action(.POST, "/v1/peek", table: Self.table) == nil)
        #expect(RouteAudit.action(.GET, "/v1/things/{id}", table: Self.table) == nil)
    }

    @Test func theGovernanceRoutesHaveTheDesignsActions() {
        // docs/governance.md, "Audit": the other half's routes are named here so they are audited when they land.
        let expected: [String: String] = [
            "POST /v1/environments/{env}/schedules": "change.schedule", "DELETE /v1/changes/{id}": "change.cancel",
            "POST /v1/changes/{id}/approve": "change.approve", "POST /v1/changes/{id}/reject": "change.reject",
            "PUT /v1/environments/{env}/policy": "policy.update", "POST /v1/webhooks": "webhook.create",
            "DELETE /v1/webhooks/{id}": "webhook.delete", "PUT /v1/environments/{env}/document": "publish",
            "PUT /v1/environments/{env}/flags/{key}": "publish", "POST /v1/environments/{env}/rollback": "publish",
            "POST /v1/tokens": "token.create", "DELETE /v1/tokens/{name}": "token.revoke",
        ]
        for (route, action) in expected { #expect(RouteAudit.table[route] == .action(action), "\(route)") }
        #expect(Set(RouteAudit.table.keys) == Set(expected.keys).union(["POST /v1/environments/{env}/preview"]))
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
