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
}
