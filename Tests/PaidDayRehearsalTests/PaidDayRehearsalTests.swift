import FlagKit
import Foundation
import PaidDayRehearsal
import Testing

/// The paid day of docs/monetization.md on 100,000 synthetic installs: nobody who pays, no early user and no install
/// whose date is unknown loses access at any step; the lock does lock the installs it is meant for.
@Suite(.serialized) struct PaidDayRehearsalTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let switchDate = Date(timeIntervalSince1970: 1_803_859_200)   // 2027-03-01T00:00:00Z, as in flags/paid-day
    static let now = switchDate.addingTimeInterval(30 * 86_400)

    static func runbook() throws -> [RunbookStep] {
        try RunbookStep.load(base: root.appendingPathComponent("flags/production.json").path,
                             runbook: root.appendingPathComponent("flags/paid-day").path)
    }

    @Test func theRunbookLocksOnlyLateNonSubscribers() throws {
        let steps = try Self.runbook()
        #expect(steps.map(\.name) == ["today", "free period over", "announce price change", "early user cohorts", "lock"])
        let population = Population(count: 100_000, switchDate: Self.switchDate, daysSince: 30)
        let results = PaidDayRehearsal.run(population, steps: steps, now: Self.now)
        print(PaidDayRehearsal.report(results), terminator: "")

        let losses = PaidDayRehearsal.lossesToAvoid(results)
        #expect(losses.subscribers == 0 && losses.earlyUsers == 0 && losses.unknownOrigin == 0, "\(losses)")
        #expect(results.allSatisfy { $0.total.gained == 0 }, "the paid day opens nothing")
        #expect(results.dropLast().allSatisfy { $0.total.lost == 0 }, "nothing before the lock takes access away")

        // The lock does what it is for: every late install online that does not pay loses access (not the two
        // internal testers, who are locked from the start), and nobody else.
        let lateNonSubscribersOnline = population.installs.dropFirst(2).filter {
            $0.origin == .late && !$0.standing.isSubscriber && !$0.offlineWithOldCache
        }.count
        let lock = try #require(results.last)
        #expect(lateNonSubscribersOnline > 10_000, "the population has late installs that do not pay: \(lateNonSubscribersOnline)")
        #expect(lock.total.lost == lateNonSubscribersOnline)
        #expect(lock.byOrigin[.late]?.lost == lateNonSubscribersOnline)
        #expect(lock.offline.lost == 0, "an old cache keeps its values until the next refresh")

        // Before the lock everyone but the two internal testers (locked in production.json already, and not paying
        // in the population) has access; at the lock each paying standing keeps it in full.
        #expect(results[0].total.withAccess >= population.installs.count - 2)
        for standing in SyntheticInstall.Standing.allCases where standing.isSubscriber {
            let counts = try #require(lock.byStanding[standing])
            #expect(counts.withAccess == counts.installs && counts.installs > 0, "\(standing.rawValue): \(counts)")
        }
    }

    /// The naive lock (default true, early users excepted) would lock every install whose date is unknown: the
    /// rehearsal sees it, so the check above can fail.
    @Test func theNaiveLockWouldLockInstallsWhoseDateIsUnknown() throws {
        var steps = try Self.runbook()
        let lock = try #require(steps.last)
        let naive = ChangeSet(flags: ["premiumFeaturesLocked": .object([
            "type": "boolean", "default": true, "requires": .object(["monetizationEnabled": true]),
            "rules": .array([.object(["cohort": "earlyUsers", "value": false])]),
        ])])
        steps[steps.count - 1] = RunbookStep(name: "naive lock", document: try naive.apply(to: steps[steps.count - 2].document))
        #expect(lock.document != steps[steps.count - 1].document)
        let population = Population(count: 20_000, switchDate: Self.switchDate, daysSince: 30)
        let losses = PaidDayRehearsal.lossesToAvoid(PaidDayRehearsal.run(population, steps: steps, now: Self.now))
        #expect(losses.unknownOrigin > 500, "unknown dates locked: \(losses.unknownOrigin)")
        #expect(losses.subscribers == 0 && losses.earlyUsers == 0, "subscribers and early users still open: \(losses)")
    }

    @Test func aRunbookThatCannotBeReadIsAClearError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rehearsal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = Self.root.appendingPathComponent("flags/production.json").path
        #expect(throws: RunbookStep.LoadError.self) { try RunbookStep.load(base: base, runbook: directory.path) }
        try Data(#"{"flags": {"premiumFeaturesLocked": {"type": "boolean", "default": "yes"}}}"#.utf8)
            .write(to: directory.appendingPathComponent("1-broken.changes.json"))
        do {
            _ = try RunbookStep.load(base: base, runbook: directory.path)
            Issue.record("a change set with a wrong default was applied")
        } catch {
            #expect(error.description.contains("1-broken.changes.json"), "\(error)")
        }
    }

    /// The command as an operator runs it: exit 0 and the zero lines on the repository's runbook.
    @Test func theCommandPrintsTheReportAndExitsZero() throws {
        let binary = try #require([Bundle.main.executableURL?.deletingLastPathComponent(),
                                   CommandLine.arguments.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent() },
                                   Self.root.appendingPathComponent(".build/debug")]
            .compactMap { $0?.appendingPathComponent("paid-day-rehearsal") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("rehearsal-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--installs", "5000"]
        process.currentDirectoryURL = Self.root
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("== step 4: lock") && text.contains("subscribers losing access at some step: 0"), "\(text)")
    }
}
