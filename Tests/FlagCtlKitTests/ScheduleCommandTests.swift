import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl schedule`: the command line, and a schedule made, listed and run by a real `flagserver`.
@Suite struct ScheduleCommandTests {
    @Test func theCommandLineNeedsWhatAndWhenAndWhy() throws {
        let parsed = try TestSupport.parse(ScheduleCommand.self, ["production", "showIntroFreeSubscriptionBanner", "false",
                                                                   "--at", "2027-03-01T00:00:00+01:00", "-m", "intro over"]).get()
        #expect(parsed.environment == "production")
        #expect(parsed.flip?.flag == "showIntroFreeSubscriptionBanner" && parsed.flip?.value == "false")
        #expect(parsed.at == "2027-03-01T00:00:00+01:00")
        #expect(parsed.message == "intro over")
        let document = try TestSupport.parse(ScheduleCommand.self, ["production", "--document", "f.json", "--at", "2027-03-01T00:00:00Z",
                                                                     "-m", "m"]).get()
        #expect(document.flip == nil && document.documentFile == "f.json")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "a", "true", "-m", "m"]) == "missing --at TIME: when to apply it")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "a", "true", "--at", "2027-03-01 00:00", "-m", "m"])
                == "--at '2027-03-01 00:00' is not an RFC 3339 time with an offset (2027-03-01T00:00:00+01:00)")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "a", "--at", "2027-03-01T00:00:00Z", "-m", "m"])
                == "missing FLAG VALUE (or --document FILE): what to schedule")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "a", "true", "--document", "f", "--at", "2027-03-01T00:00:00Z",
                                                              "-m", "m"]) == "give either FLAG VALUE or --document FILE, not both")
        #expect(TestSupport.usageError(ScheduleCommand.self, ["production", "a", "true", "--at", "2027-03-01T00:00:00Z"])
                == "missing -m/--message: say why, it is recorded with the change")
    }

    @Test func aFlipIsScheduledListedCancelledAndAnotherRunsAtItsTime() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let later = try server.flagctl(["schedule", "production", "showIntroFreeSubscriptionBanner", "false", "--at", TestSupport.time(in: 3_600),
                                        "-m", "the free intro period is over"])
        #expect(later.status == 0, "\(later.stderr)")
        let lines = later.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("scheduled production change 1 for ") == true)
        #expect(lines.first?.hasSuffix(": showIntroFreeSubscriptionBanner") == true)
        #expect(lines.contains("  ~ flag showIntroFreeSubscriptionBanner"))
        #expect(lines.last == "cancel: flagctl unschedule 1")
        let soon = try server.flagctl(["schedule", "production", "introOfferMessage", "Symi ist bald kostenpflichtig.",
                                       "--at", TestSupport.time(in: 2), "-m", "new copy"])
        #expect(soon.status == 0, "\(soon.stderr)")
        // A string flag takes the text as it is; a wrong type never reaches the server.
        let wrong = try server.flagctl(["schedule", "production", "showIntroFreeSubscriptionBanner", "maybe", "--at", TestSupport.time(in: 60),
                                        "-m", "m"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr == "flagctl: flag showIntroFreeSubscriptionBanner is boolean; 'maybe' is string\n")

        let listed = try server.flagctl(["schedules", "production"])
        #expect(listed.status == 0)
        #expect(listed.stdout.split(separator: "\n").count == 3, "a header and two schedules:\n\(listed.stdout)")
        #expect(try server.flagctl(["unschedule", "1", "-m", "not yet"]).stdout.hasPrefix("cancelled production change 1 ("))
        // The other one runs: poll the history for it.
        var history = ""
        let deadline = Date().addingTimeInterval(15)
        while !history.contains("new copy"), Date() < deadline {
            usleep(100_000)
            history = try server.flagctl(["history", "production"]).stdout
        }
        #expect(history.contains("2  ") && history.contains("ci  ") && history.contains("new copy"))
        let all = try server.flagctl(["schedules", "production", "--all", "--json"])
        let statuses = try JSONParser.parse(all.stdout).value.arrayValue?.compactMap { $0.objectValue?["status"]?.stringValue }
        #expect(statuses?.sorted() == ["applied", "cancelled"])
        #expect(try server.flagctl(["schedules", "production"]).stdout == "production: no waiting scheduled changes\n")
    }

    @Test func aWholeDocumentAndAProtectedFlipWaitForTheirTurn() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["next.json": TestSupport.cleanDocument()])
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = try server.flagctl(["schedule", "staging", "--document", directory.appendingPathComponent("next.json").path,
                                           "--at", TestSupport.time(in: 3_600), "-m", "next release"])
        #expect(document.status == 0, "\(document.stderr)")
        #expect(document.stdout.hasPrefix("scheduled staging change 1 for "))
        let protected = try server.flagctl(["schedule", "production", "premiumFeaturesLocked", "true", "--at", TestSupport.time(in: 3_600),
                                            "-m", "lock at launch"])
        #expect(protected.status == 3, "recorded, but waiting for approval first")
        #expect(protected.stdout.hasPrefix("nothing was published: production change request 2 needs a second person's approval\n"))
        #expect(protected.stdout.contains("  applies at: "))
        #expect(protected.stdout.contains("approve (with another writer's token): flagctl approve 2 -m MESSAGE"))
    }
}
