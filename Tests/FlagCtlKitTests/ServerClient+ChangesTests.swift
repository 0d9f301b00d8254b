import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// The governance calls of `ServerClient` against a real server: what each returns and how a refusal reads.
@Suite struct ServerClientChangesTests {
    @Test func schedulesListsApprovesAndReadsTheVersionItPublished() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let base = try #require(URL(string: server.url))
        let client = ServerClient(baseURL: base, token: server.writerToken)
        let current = try #require(try client.current("production"))
        let at = TestSupport.time(in: 3_600)
        let schedule = try client.schedule("production", at: at, message: "m", flags: ["showIntroFreeSubscriptionBanner": false], basedOn: current)
        #expect(schedule.change.status == "scheduled" && !schedule.needsApproval)
        #expect(schedule.change.applyAt == RFC3339.string(milliseconds: try RFC3339.milliseconds(parsing: at)))
        // If-Match of a version that is no longer current.
        var old = current
        old.etag = "\"1-0000000000000000\""
        #expect(throws: ServerError.conflict(environment: "production", currentVersion: 1, basedOn: 1)) {
            try client.schedule("production", at: at, message: "m", flags: ["showIntroFreeSubscriptionBanner": false], basedOn: old)
        }
        guard case .requested(let request) = try client.setFlag("production", key: "monetizationEnabled", value: false, basedOn: current,
                                                                message: "pause") else {
            Issue.record("a protected flip must come back as a change request")
            return
        }
        #expect(request.needsApproval)
        #expect(try client.changes("production", .requests, statuses: ["pending"]).map(\.id) == [request.change.id])
        #expect(try client.changes("production", .schedules).map(\.id) == [schedule.change.id])
        let bob = ServerClient(baseURL: base, token: try server.token(name: "ops-bob", role: "writer"))
        let approval = try bob.approve(request.change.id, message: nil)
        #expect(approval.change.status == "applied")
        #expect(approval.version?.version == 2)
        #expect(approval.version?.author == "ci")
        #expect(try client.change(request.change.id).approvedBy == "ops-bob")
        #expect(try client.cancel(schedule.change.id, message: "no").status == "cancelled")
        #expect(try client.policy("production")["policy"]?.objectValue?["requestTTLHours"] == 72)
        #expect(try client.stale("production", days: 0)["days"] == 0)
    }
}
