import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl rollback` against a real `flagserver`.
@Suite struct RollbackCommandTests {
    @Test func republishesAnOldVersionAsANewOne() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "Start"]).status == 0)
        let run = try server.flagctl(["rollback", "production", "--to", "1", "-m", "Incident 42", "--yes"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count >= 4)
        #expect(lines[0] == "--- production (version 2, current)")
        #expect(lines[1].hasPrefix("+++ production@1 (") && lines[1].hasSuffix(", flagserver: initial import of production.json)"))
        #expect(lines[2] == "~ flag monetizationEnabled")
        #expect(lines[3] == "    default: false -> true")
        #expect(lines.last?.hasPrefix("rolled back production to version 1's content: version 3 by ci at ") == true)
        let now = try PublishCommandTests.current(server)
        #expect(now["version"] == .integer(3))
        #expect(now["rolledBackFrom"] == .integer(1))
        #expect(now["contentHash"] == .string(try FlagDocument.decode(try TestSupport.bytes("flags/production.json")).contentHash))

        let same = try server.flagctl(["rollback", "production", "--to", "1", "-m", "twice", "--yes"])
        #expect(same.status == 0)
        #expect(same.stdout == "production version 3 already has the content of version 1: nothing to roll back\n")
    }

    @Test func refusals() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let missing = try server.flagctl(["rollback", "production", "--to", "7", "-m", "x", "--yes"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "flagctl: GET \(server.url)/v1/environments/production/versions/7: 404 version_not_found: production has no version 7\n")
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "Start"]).status == 0)
        let unconfirmed = try server.flagctl(["rollback", "production", "--to", "1", "-m", "x"])
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stderr.hasSuffix("pass --yes to go ahead; nothing was changed\n"))
        #expect(try PublishCommandTests.current(server)["version"] == .integer(2))
        let usage = try TestSupport.run(["rollback", "production", "-m", "x"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("flagctl: error: missing --to N: the version to go back to\n"))
    }

    @Test func aRollbackAcrossAProtectedChangeIsAChangeRequestAndExits3() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        #expect(try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "launch"]).status == 3)
        let bob = try server.token(name: "ops-bob", role: "writer")
        #expect(try server.flagctl(["approve", "1"], environment: server.environment(token: .value(bob))).status == 0)
        let back = try server.flagctl(["rollback", "production", "--to", "1", "-m", "undo the launch", "--yes"])
        #expect(back.status == 3, "\(back.stderr)")
        #expect(back.stdout.contains("nothing was published: production change request 2 needs a second person's approval\n"))
        #expect(try PublishCommandTests.current(server)["version"] == .integer(2))
    }
}
