import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl requests`: what waits for a second person, newest first; `--all` and `--json`.
@Suite struct RequestsCommandTests {
    @Test func theCommandLine() throws {
        let parsed = try TestSupport.parse(RequestsCommand.self, ["production", "--all", "--json"]).get()
        #expect(parsed.options == ChangeListingOptions(environment: "production", all: true, json: true))
        #expect(TestSupport.usageError(RequestsCommand.self, ["Production"]) == "'Production' is not an environment name (lowercase letters, digits and '-')")
    }

    @Test func listsPendingRequestsNewestFirstAndAllWithAll() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        #expect(try server.flagctl(["requests", "production"]).stdout == "production: no pending change requests\n")
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "pause"]).status == 3)
        #expect(try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "lock"]).status == 3)
        #expect(try server.flagctl(["unschedule", "1"]).status == 0)
        let pending = try server.flagctl(["requests", "production"])
        let lines = pending.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("ID  STATUS   CREATED"))
        #expect(lines[1].hasPrefix("2   pending  "))
        #expect(lines[1].hasSuffix("  ci      premiumFeaturesLocked  premiumFeaturesLocked  lock"))
        let all = try server.flagctl(["requests", "production", "--all", "--json"])
        let changes = try #require(try JSONParser.parse(all.stdout).value.arrayValue)
        #expect(changes.compactMap { $0.objectValue?["status"]?.stringValue } == ["pending", "cancelled"])
        #expect(changes.last?.objectValue?["protectedFlags"] == ["monetizationEnabled", "premiumFeaturesLocked"])
    }
}
