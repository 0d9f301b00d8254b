import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl policy`: shows the policy in force; `--set` replaces it with an admin token.
@Suite struct PolicyCommandTests {
    @Test func theCommandLine() throws {
        #expect(try TestSupport.parse(PolicyCommand.self, ["production"]).get().file == nil)
        #expect(try TestSupport.parse(PolicyCommand.self, ["production", "--set", "p.json"]).get().file == "p.json")
    }

    @Test func showsAndSetsWithAnAdminToken() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let shown = try server.flagctl(["policy", "production"])
        #expect(shown.status == 0)
        let record = try #require(try JSONParser.parse(shown.stdout).value.objectValue)
        #expect(record["updatedBy"] == "flagserver", "seeded from flags/policy/production.json at the first start")
        #expect(record["policy"]?.objectValue?["flags"]?.objectValue?["premiumFeaturesLocked"] == ["protected": true, "owner": "monetization"])

        let directory = try TestSupport.directory(with: ["p.json": #"{"protected": true, "requestTTLHours": 4}"#,
                                                         "bad.json": #"{"requestTTLHours": 0, "flags": {"a": {"owner": 3}}}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try server.flagctl(["policy", "staging", "--set", "p.json"], in: directory)
        #expect(writer.status == 2)
        #expect(writer.stderr.contains("403 forbidden: this token has role writer; this needs admin"))
        let admin = try server.token(name: "root", role: "admin")
        let set = try server.flagctl(["policy", "staging", "--set", "p.json"], environment: server.environment(token: .value(admin)), in: directory)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try JSONParser.parse(set.stdout).value.objectValue?["policy"] == ["protected": true, "requestTTLHours": 4, "flags": [:]])
        let bad = try server.flagctl(["policy", "staging", "--set", "bad.json"], environment: server.environment(token: .value(admin)), in: directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("422 invalid_policy: the policy has 2 problems"))
        #expect(bad.stderr.contains("  /requestTTLHours: must be an integer from 1 to 720 (got 0)"))
        #expect(bad.stderr.contains("  /flags/a/owner: must be a string (got integer)"))
        let missing = try server.flagctl(["policy", "staging", "--set", "missing.json"], environment: server.environment(token: .value(admin)),
                                         in: directory)
        #expect(missing.status == 2)
        // The whole staging environment is protected now: every flip waits for approval.
        #expect(try server.flagctl(["set", "staging", "showIntroFreeSubscriptionBanner", "false", "-m", "m"]).status == 3)
    }
}
