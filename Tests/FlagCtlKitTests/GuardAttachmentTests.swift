import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `--guard FILE` on `publish`, `set` and `schedule`: read, checked before anything is sent, and added to what the
/// command made.
@Suite struct GuardAttachmentTests {
    @Test func publishSetAndScheduleTakeAGuardFile() throws {
        let publish = try TestSupport.parse(PublishCommand.self, ["--env", "production", "-m", "lock", "--yes", "--guard", "g.json", "p.json"]).get()
        #expect(publish.guardFile == "g.json" && publish.file == "p.json")
        #expect(try TestSupport.parse(PublishCommand.self, ["--env", "production", "-m", "m", "--yes", "p.json"]).get().guardFile == nil)
        #expect(TestSupport.usageError(PublishCommand.self, ["--env", "production", "-m", "m", "--yes", "--guard", "-", "-"])
                == "the document and the guard file cannot both come from standard input")
        let set = try TestSupport.parse(SetCommand.self, ["production", "premiumFeaturesLocked", "true", "-m", "lock", "--guard", "g.json"]).get()
        #expect(set.guardFile == "g.json")
        let schedule = try TestSupport.parse(ScheduleCommand.self, ["production", "premiumFeaturesLocked", "true", "--at", "2027-03-01T00:00:00Z",
                                                                   "-m", "lock", "--guard", "g.json"]).get()
        #expect(schedule.guardFile == "g.json")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "--document", "-", "--at", "2027-03-01T00:00:00Z", "-m", "m",
                                                              "--guard", "-"]) == "the document and the guard file cannot both come from standard input")
    }

    /// An invalid guard file stops the command before it asks the server anything: no server is configured here, so
    /// reaching the server would be a different error.
    @Test func anInvalidGuardFileIsRefusedBeforeAnythingIsSent() throws {
        let directory = try TestSupport.directory(with: ["bad.json": #"{"guards": [{"metric": "refunds", "action": "rollback", "baseline": "floor"}]}"#,
                                                         "doc.json": TestSupport.cleanDocument()])
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.json").path
        let unreachable = ["FLAGCTL_SERVER": "http://127.0.0.1:1", "FLAGCTL_TOKEN": "t"]
        let expected = "flagctl: \(bad) is not a valid guard file: /guards/0: threshold: a floor needs a threshold; nothing was sent\n"
        for arguments in [["set", "production", "premiumFeaturesLocked", "true", "-m", "m", "--guard", bad],
                          ["publish", "--env", "production", "-m", "m", "--yes", "--guard", bad, directory.appendingPathComponent("doc.json").path],
                          ["schedule", "production", "a", "true", "--at", "2027-03-01T00:00:00Z", "-m", "m", "--guard", bad]] {
            let run = try TestSupport.run(arguments, environment: unreachable)
            #expect(run.status == 2 && run.stderr == expected, "\(arguments[0]): \(run.stderr)")
        }
    }

    /// On a real server: a publish's guards watch the version it published, a schedule's wait for its change, and
    /// nothing published adds nothing.
    @Test func theGuardsGoOnWhatTheCommandMade() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["next.json": TestSupport.cleanDocument(),
                                                         "two.json": #"{"guards": [{"metric": "refunds", "action": "rollback"}, {"metric": "started", "action": "notify", "product": "symi_plus_monthly"}]}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = directory.appendingPathComponent("next.json").path
        let two = directory.appendingPathComponent("two.json").path
        let published = try server.flagctl(["publish", "--env", "staging", "-m", "next", "--yes", "--guard", two, document])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stdout.contains("added guard 1 to staging version 2 (watching): refunds per hour"))
        #expect(published.stdout.contains("added guard 2 to staging version 2 (watching): started per hour"))
        let again = try server.flagctl(["publish", "--env", "staging", "-m", "again", "--yes", "--guard", two, document])
        #expect(again.status == 0 && again.stdout.hasSuffix("no guard added from \(two): nothing new was published\n"), "\(again.stdout)")
        let scheduled = try server.flagctl(["schedule", "production", "showIntroFreeSubscriptionBanner", "false", "--at", TestSupport.time(in: 3_600),
                                            "-m", "intro over", "--guard", "flags/paid-day/4-lock.guard.json"])
        #expect(scheduled.status == 0, "\(scheduled.stderr)")
        #expect(scheduled.stdout.contains("added guard 3 to production change 1 (waiting): refunds per hour"))
        #expect(scheduled.stdout.contains("added guard 4 to production change 1 (waiting): autoRenewOff per hour"))
        let staging = try JSONParser.parse(try server.flagctl(["guard", "list", "staging", "--json"]).stdout).value.arrayValue ?? []
        #expect(staging.map { $0["product"] } == [.string("symi_plus_monthly"), .null], "newest first, each with what it reads")
        #expect(staging.allSatisfy { $0["version"] == .integer(2) && $0["change"] == .null })
    }
}
