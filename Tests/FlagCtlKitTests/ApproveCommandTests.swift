import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl approve`: a protected flip by one person published by another's approval, against a real server.
@Suite struct ApproveCommandTests {
    @Test func theCommandLine() throws {
        let parsed = try TestSupport.parse(ApproveCommand.self, ["12", "-m", "checked"]).get()
        #expect(parsed.id == 12 && parsed.message == "checked")
        #expect(try TestSupport.parse(ApproveCommand.self, ["12"]).get().message == nil)
        #expect(TestSupport.usageError(ApproveCommand.self, ["twelve"]) == "'twelve' is not a change id (a positive whole number)")
        #expect(TestSupport.usageError(ApproveCommand.self, ["0"]) == "'0' is not a change id (a positive whole number)")
    }

    @Test func aSecondPersonApprovesAndTheFlipIsPublished() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let flip = try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "paid launch"])
        #expect(flip.status == 3, "nothing published: a script must not take it for a publish")
        #expect(flip.stdout.hasPrefix("production: premiumFeaturesLocked false -> true for everyone (its 1 rule would be removed), once approved\n"
                                      + "nothing was published: production change request 1 needs a second person's approval\n"
                                      + "  protected:  premiumFeaturesLocked\n"))
        let own = try server.flagctl(["approve", "1"])
        #expect(own.status == 2)
        #expect(own.stderr.contains("403 self_approval: ci proposed change 1; a second person must approve it (another person's token must approve it)"))
        let bob = try server.token(name: "ops-bob", role: "writer")
        let approved = try server.flagctl(["approve", "1", "-m", "checked with finance"], environment: server.environment(token: .value(bob)))
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(approved.stdout.hasPrefix("approved production change 1: published production version 2 by ci at "))
        #expect(approved.stdout.hasSuffix(": paid launch\n"))
        #expect(try server.flagctl(["get", "production", "premiumFeaturesLocked"]).stdout.contains(#""default": true"#))
        let again = try server.flagctl(["approve", "1"], environment: server.environment(token: .value(bob)))
        #expect(again.status == 2)
        #expect(again.stderr.contains("409 not_pending: change 1 is applied, not pending"))
    }
}
