import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl reject`: closes a change request with the reason; nothing of it is published.
@Suite struct RejectCommandTests {
    @Test func theCommandLineNeedsAReason() throws {
        #expect(try TestSupport.parse(RejectCommand.self, ["3", "-m", "too early"]).get().message == "too early")
        #expect(TestSupport.usageError(RejectCommand.self, ["3"]) == "missing -m/--message: say why, it is recorded with the change")
    }

    @Test func aRejectedRequestIsClosedAndNothingIsPublished() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "pause"]).status == 3)
        let bob = try server.token(name: "ops-bob", role: "writer")
        let rejected = try server.flagctl(["reject", "1", "-m", "not during the campaign"], environment: server.environment(token: .value(bob)))
        #expect(rejected.status == 0, "\(rejected.stderr)")
        #expect(rejected.stdout == "rejected production change 1 by ci (monetizationEnabled): nothing was published\n")
        #expect(try server.flagctl(["requests", "production"]).stdout == "production: no pending change requests\n")
        #expect(try server.flagctl(["history", "production"]).stdout.split(separator: "\n").count == 2, "still only version 1")
        #expect(try server.flagctl(["reject", "1", "-m", "again"]).status == 2)
    }
}
