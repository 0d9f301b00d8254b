import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl stale`: exit 0 when nothing is stale, 1 when flags are listed, 2 on trouble.
@Suite struct StaleCommandTests {
    @Test func theCommandLine() throws {
        #expect(try TestSupport.parse(StaleCommand.self, ["production"]).get().days == 30)
        #expect(try TestSupport.parse(StaleCommand.self, ["production", "--days", "0"]).get().days == 0)
        #expect(TestSupport.usageError(StaleCommand.self, ["production", "--days", "-3"]) == "--days '-3' must be a whole number from 0 to 3650")
    }

    @Test func theExitStatusSaysWhetherAnythingIsStale() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let month = try server.flagctl(["stale", "production"])
        #expect(month.status == 0, "a history younger than 30 days: nothing constant that long; no policy, no removal date")
        #expect(month.stdout == "production: no stale flags (none past its removal date, none constant for 30 days)\n")
        let now = try server.flagctl(["stale", "production", "--days", "0"])
        #expect(now.status == 1)
        let lines = now.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("FLAG ") == true)
        let banner = try #require(lines.first { $0.hasPrefix("showIntroFreeSubscriptionBanner ") })
        #expect(banner.contains("constant true since "))
        #expect(!lines.contains { $0.hasPrefix("premiumFeaturesLocked ") }, "its rule for internal testers gives another value")
        let json = try server.flagctl(["stale", "production", "--days", "0", "--json"])
        #expect(json.status == 1)
        #expect(try JSONParser.parse(json.stdout).value.objectValue?["days"] == 0)
        #expect(try server.flagctl(["stale", "nope"]).status == 2)

        // A removal date in the past (a fixed past date: the test does not age) with its owner.
        let directory = try TestSupport.directory(with: ["p.json": #"{"flags": {"legalLinks": {"owner": "legal", "removeAfter": "2020-01-01"}}}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let admin = try server.token(name: "root", role: "admin")
        #expect(try server.flagctl(["policy", "production", "--set", "p.json"], environment: server.environment(token: .value(admin)),
                                   in: directory).status == 0)
        let dated = try server.flagctl(["stale", "production"])
        #expect(dated.status == 1)
        #expect(dated.stdout.split(separator: "\n").last?.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                == ["legalLinks", "legal", "2020-01-01", "past", "its", "removal", "date"])
    }
}
