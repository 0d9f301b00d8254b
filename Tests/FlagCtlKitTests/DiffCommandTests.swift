import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl diff` through the real binary: text, JSON, exit codes, and `--impact` against a direct count.
@Suite struct DiffCommandTests {
    @Test func sameFilesExit0() throws {
        let run = try TestSupport.run(["diff", "flags/production.json", "flags/production.json"])
        #expect(run.status == 0)
        #expect(run.stdout == "--- flags/production.json\n+++ flags/production.json\nno differences\n")
    }

    @Test func readableDiffPlainWhenNotATerminal() throws {
        let run = try TestSupport.run(["diff", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 1)
        #expect(!run.stdout.contains("\u{1B}"))
        #expect(run.stdout.hasPrefix("--- flags/production.json\n+++ flags/staging.json\n~ flag premiumFeaturesLocked\n"))
        #expect(run.stdout.contains("\n    + rule 1: cohort beta, rollout 12.5%: true\n"))
        #expect(run.stdout.contains("\n    default: [\"symi_plus_monthly\"] -> [\"symi_plus_monthly\",\"symi_plus_yearly\"]\n"))
    }

    @Test func coloredOnARealTerminalUnlessNoColor() throws {
        let run = try TestSupport.runOnTerminal(["diff", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("\u{1B}[33m~ flag premiumFeaturesLocked\u{1B}[0m"))
        #expect(run.stdout.contains("\u{1B}[32m    + rule 1: cohort beta, rollout 12.5%: true\u{1B}[0m"))
        let plain = try TestSupport.runOnTerminal(["diff", "flags/production.json", "flags/staging.json"], environment: ["NO_COLOR": "1"])
        #expect(plain.status == 1)
        #expect(!plain.stdout.contains("\u{1B}["))
        #expect(plain.stdout.contains("~ flag premiumFeaturesLocked"))
    }

    @Test func addedRemovedAndChangedCohorts() throws {
        let directory = try TestSupport.directory(with: [
            "a.json": #"{"flags": {"x": {"type": "boolean", "default": false}}, "cohorts": {"c": {"country": {"eq": "DE"}}, "d": {}}}"#,
            "b.json": #"{"flags": {"y": {"type": "integer", "default": 2}}, "cohorts": {"c": {"country": {"eq": "AT"}}, "e": {}}}"#,
        ])
        let run = try TestSupport.run(["diff", "a.json", "b.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout == """
        --- a.json
        +++ b.json
        - flag x: boolean, default false
        + flag y: integer, default 2
        ~ cohort c
            was: {"country":{"eq":"DE"}}
            now: {"country":{"eq":"AT"}}
        - cohort d: {}
        + cohort e: {}

        """)
    }

    @Test func jsonParsesAndCarriesTheDiff() throws {
        let run = try TestSupport.run(["diff", "--json", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 1)
        let parsed = try JSONParser.parse(run.stdout).value
        #expect(parsed.objectValue?["identical"] == false)
        #expect(parsed.objectValue?["from"] == "flags/production.json")
        let changed = parsed.objectValue?["flags"]?.objectValue?["changed"]?.arrayValue ?? []
        #expect(changed.compactMap { $0.objectValue?["key"] } == ["premiumFeaturesLocked", "subscriptionProductIds"])
        #expect(parsed.objectValue?["impact"] == nil)
    }

    @Test func troubleExits2() throws {
        let directory = try TestSupport.directory(with: ["bad.json": #"{"flags": 1}"#])
        let missing = try TestSupport.run(["diff", "nope.json", "bad.json"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.stderr == "flagctl: cannot read nope.json: No such file or directory (open, errno 2)\n")
        let invalid = try TestSupport.run(["diff", TestSupport.packageRoot.appendingPathComponent("flags/production.json").path, "bad.json"],
                                          in: directory)
        #expect(invalid.status == 2)
        #expect(invalid.stderr == "flagctl: bad.json is not a valid flag document:\n  bad.json: /flags: must be an object of flag definitions (got integer)\n")
        #expect(invalid.stdout.isEmpty)
    }

    @Test func usageErrorsExit64WithTheUsageLine() throws {
        for arguments in [["diff"], ["diff", "a", "b", "--sample", "5"], ["diff", "a", "b", "--impact", "--sample", "x"],
                          ["diff", "production"], ["diff", "a.json", "b.json", "--env", "production"], ["diff", "production@0", "b.json"]] {
            let run = try TestSupport.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains("\nUsage: \(FlagCtl.usage(of: DiffCommand.self))\nSee 'flagctl diff --help'.\n"), "\(arguments)")
        }
    }

    /// The figures the binary prints equal a count done here with FlagKit over the same contexts.
    @Test func impactFromAContextsFileMatchesADirectCount() throws {
        var generator = SplitMix64(seed: 77)
        let locales = ["de-DE", "en_US", "en-GB", "fr-FR"]
        let channels = ["appstore", "testflight", "debug"]
        let versions = ["2.3.0", "2.4.0", "2.5.1"]
        var lines: [String] = []
        var contexts: [EvaluationContext] = []
        for index in 0..<3_000 {
            let attributes: [String: JSONValue] = [
                "installId": .string("install-\(index)"),
                "locale": .string(locales[generator.next(below: locales.count)]),
                "channel": .string(channels[generator.next(below: channels.count)]),
                "appVersion": .string(versions[generator.next(below: versions.count)]),
            ]
            lines.append(JSONValue.object(attributes).canonicalString)
            contexts.append(EvaluationContext(attributes: attributes))
        }
        let directory = try TestSupport.directory(with: [
            "a.json": try ImpactFixtures.text("before"), "b.json": try ImpactFixtures.text("after"), "contexts.jsonl": lines.joined(separator: "\n") + "\n",
        ])
        let run = try TestSupport.run(["diff", "--impact", "--json", "--sample", "3000", "--contexts", "contexts.jsonl", "a.json", "b.json"],
                                      in: directory)
        #expect(run.status == 1)
        let impact = try #require(try JSONParser.parse(run.stdout).value.objectValue?["impact"]?.objectValue)
        #expect(impact["sampleSize"] == 3_000)
        #expect(impact["source"] == "contexts.jsonl")
        // FlagKit's count itself is checked against a plain loop in FlagKitTests' ImpactAnalysisTests.
        let direct = try ImpactFixtures.expectedCounts(contexts)
        var printed: [String: [String: Int]] = [:]
        for (key, value) in impact["flags"]?.objectValue ?? [:] {
            for transition in value.objectValue?["transitions"]?.arrayValue ?? [] {
                let object = transition.objectValue ?? [:]
                let from = object["from"]?.canonicalString ?? "(absent)"
                let to = object["to"]?.canonicalString ?? "(absent)"
                printed[key, default: [:]]["\(from) -> \(to)"] = Int(object["count"]?.integerValue ?? -1)
            }
        }
        #expect(printed == direct)
        #expect(!(direct["premiumFeaturesLocked"] ?? [:]).isEmpty, "the fixture must exercise a rollout change")
    }

    /// The text lines for the generated sample equal a direct count over the same generated installs.
    @Test func impactTextOnAGeneratedSampleMatchesADirectCount() throws {
        let run = try TestSupport.run(["diff", "--impact", "--sample", "20000", "--seed", "5", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 1)
        let old = try FlagDocument.decode(TestSupport.bytes("flags/production.json"))
        let new = try FlagDocument.decode(TestSupport.bytes("flags/staging.json"))
        let sample = ImpactSample.generate(count: 20_000, seed: 5, pools: ImpactSample.pools(for: [old, new]))
        let locked = sample.filter { old.evaluate("premiumFeaturesLocked", context: $0).value == false
            && new.evaluate("premiumFeaturesLocked", context: $0).value == true }.count
        #expect(locked > 0)
        let share = String(format: "%.1f%%", Double(locked) * 100 / 20_000)
        #expect(run.stdout.contains("\nimpact on 20,000 sampled installs (generated, seed 5):\n"))
        #expect(run.stdout.contains("\n  premiumFeaturesLocked: \(share) of sampled installs change false -> true (\(ImpactReport.grouped(locked)) of 20,000)\n"))
        #expect(run.stdout.contains("\n  subscriptionProductIds: 100.0% of sampled installs change"))
        // Deterministic: a second run prints the same.
        #expect(try TestSupport.run(["diff", "--impact", "--sample", "20000", "--seed", "5", "flags/production.json", "flags/staging.json"]).stdout
                == run.stdout)
    }

    /// What the paid day's early-user rule changes, from what a real flagserver serves to the file: the sample's
    /// installs get install dates (5 % unknown), and the count equals a direct one over the same installs.
    @Test func impactOfTheEarlyUserRuleAgainstARealServer() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["production.json": try InstallDateFixtures.runbookText()])
        let run = try server.flagctl(["diff", "--impact", "--json", "--sample", "20000", "--seed", "5", "production", "production.json"],
                                     in: directory)
        #expect(run.status == 1, "\(run.stderr)")
        let impact = try #require(try JSONParser.parse(run.stdout).value.objectValue?["impact"]?.objectValue)
        let old = try FlagDocument.decode(TestSupport.bytes("flags/production.json"))
        let new = try FlagDocument.decode(InstallDateFixtures.runbookText())
        let sample = ImpactSample.generate(count: 20_000, seed: 5, pools: ImpactSample.pools(for: [old, new]))
        let locked = sample.filter { old.evaluate("premiumFeaturesLocked", context: $0).value == false
            && new.evaluate("premiumFeaturesLocked", context: $0).value == true }
        let transitions = impact["flags"]?.objectValue?["premiumFeaturesLocked"]?.objectValue?["transitions"]?.arrayValue ?? []
        #expect(transitions == [["from": false, "to": true, "count": .integer(Int64(locked.count))]], "\(transitions)")
        // About one year of three in the window is after the switch, less the unknown and boundary shares.
        #expect(locked.count > 5_000 && locked.count < 6_600, "\(locked.count)")
        #expect(locked.allSatisfy { ($0.firstInstallMilliseconds ?? 0) > 1_803_859_200_000 }, "only known late installs are locked")
        #expect(sample.contains { $0.firstInstallDate == nil }, "the sample has installs whose date is unknown")
    }

    @Test func badContextsFileIsTrouble() throws {
        let directory = try TestSupport.directory(with: ["c.jsonl": "{\"locale\": \"en\"}\n42\n"])
        let production = TestSupport.packageRoot.appendingPathComponent("flags/production.json").path
        let run = try TestSupport.run(["diff", "--impact", "--contexts", "c.jsonl", production, production], in: directory)
        #expect(run.status == 2)
        #expect(run.stderr == "flagctl: c.jsonl:2: must be a JSON object of attributes (got integer)\n")
    }
}
