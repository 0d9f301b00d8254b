import FlagKit
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl eval` through the real binary, and its context parsing.
@Suite struct EvalCommandTests {
    @Test func oneFlagForAContext() throws {
        let run = try TestSupport.run(["eval", "flags/production.json", "--context", "installId=9F1C2D7E-0000-4000-8000-000000000001",
                                       "premiumFeaturesLocked"])
        #expect(run.status == 0)
        #expect(run.stdout == "premiumFeaturesLocked = true (variant rule-0, reason TARGETING_MATCH)\n")
    }

    @Test func everyFlagWhenNoneIsNamed() throws {
        let run = try TestSupport.run(["eval", "flags/staging.json", "--context", "locale=en_US", "--context", "appVersion=2.4"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 12)
        #expect(lines.contains(#"introOfferMessage = "Symi is free for a limited time." (variant rule-0, reason TARGETING_MATCH)"#))
        #expect(lines.contains("monetizationEnabled = true (variant default, reason STATIC)"))
        #expect(lines.contains("premiumFeaturesLocked = false (variant default, reason DEFAULT)"))
    }

    @Test func jsonOutput() throws {
        let directory = try TestSupport.directory(with: ["d.json": #"""
        {"flags": {"limit": {"type": "integer", "default": 1, "rules": [{"cohort": "vip", "value": 5}]}},
         "cohorts": {"vip": {"tier": {"gte": 3}, "beta": {"eq": true}}}}
        """#])
        let run = try TestSupport.run(["eval", "d.json", "limit", "--json", "--context", "tier=3", "--context", "beta=true"], in: directory)
        #expect(run.status == 0)
        #expect(try JSONParser.parse(run.stdout).value == ["key": "limit", "value": 5, "variant": "rule-0", "reason": "TARGETING_MATCH"])
        let all = try TestSupport.run(["eval", "d.json", "--json", "--context", "tier=\"3\""], in: directory)
        #expect(try JSONParser.parse(all.stdout).value == ["flags": [["key": "limit", "value": 1, "variant": "default", "reason": "DEFAULT"]]])
    }

    @Test func contextValuesAreJSONWhenTheyParseAndBuiltInsStayStrings() throws {
        let attributes = try EvalCommand.attributes(["n=42", "b=true", "s=hello", "q=\"quoted\"", "a=[1,2]", "appVersion=2", "x=a=b"])
        #expect(attributes == ["n": 42, "b": true, "s": "hello", "q": "quoted", "a": [1, 2], "appVersion": "2", "x": "a=b"])
    }

    @Test func troubleAndUsageErrors() throws {
        let unknown = try TestSupport.run(["eval", "flags/production.json", "nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "flagctl: flag \"nope\" is not in flags/production.json\n")
        let missing = try TestSupport.run(["eval", "nope.json"])
        #expect(missing.status == 2)
        let usage = try TestSupport.run(["eval", "flags/production.json", "--context", "locale"])
        #expect(usage.status == 64)
        #expect(usage.stderr == """
        flagctl: error: --context 'locale' is not KEY=VALUE
        Usage: \(FlagCtl.usage(of: EvalCommand.self))
        See 'flagctl eval --help'.

        """)
    }

    @Test func theInstallDateIsAnOptionCheckedAsRFC3339() throws {
        let parsed = try TestSupport.parse(EvalCommand.self, ["d.json", "--first-install-date", "2026-11-20T08:15:00+01:00"]).get()
        #expect(parsed.attributes == ["firstInstallDate": "2026-11-20T08:15:00+01:00"])
        #expect(try TestSupport.parse(EvalCommand.self, ["d.json"]).get().attributes["firstInstallDate"] == nil, "default: unknown")
        #expect(TestSupport.usageError(EvalCommand.self, ["d.json", "--first-install-date", "2026-11-20"])
                == "--first-install-date must be an RFC 3339 date-time with an offset, such as 2027-03-01T00:00:00+01:00 or "
                    + "2027-02-28T23:00:00Z: the time is missing (got \"2026-11-20\")")
        #expect(TestSupport.usageError(EvalCommand.self, ["d.json", "--context", "firstInstallDate=2026-11-20T08:15:00"])?
            .hasPrefix("--context firstInstallDate must be an RFC 3339 date-time") == true)
        #expect(TestSupport.usageError(EvalCommand.self, ["d.json", "--first-install-date", "2026-11-20T08:15:00Z",
                                                          "--context", "firstInstallDate=2026-11-20T08:15:00Z"])
                == "--first-install-date and --context firstInstallDate= given together")
    }

    /// flagctl agrees with docs/evaluation-vectors.json, through the real binary: every case, and a usage error
    /// (exit 64) exactly where OFREP answers INVALID_CONTEXT.
    @Test func agreesWithTheEvaluationVectors() throws {
        let root = try JSONParser.parse(TestSupport.bytes("docs/evaluation-vectors.json")).value
        let document = try #require(root.objectValue?["document"])
        let directory = try TestSupport.directory(with: ["vectors.json": document.canonicalString])
        let cases = root.objectValue?["cases"]?.arrayValue ?? []
        #expect(cases.count >= 30)
        for vector in cases {
            let members = vector.objectValue ?? [:]
            let flag = try #require(members["flag"]?.stringValue)
            var arguments = ["eval", "vectors.json", flag, "--json"]
            for (name, value) in (members["context"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                let text = value.stringValue ?? value.canonicalString
                arguments += name == "firstInstallDate" ? ["--first-install-date", text] : ["--context", "\(name)=\(text)"]
            }
            let run = try TestSupport.run(arguments, in: directory)
            let note = members["note"]?.stringValue ?? ""
            if members["invalidContext"] == true {
                #expect(run.status == 64 && run.stderr.contains("--first-install-date must be"), "\(note): \(run.stderr)")
                continue
            }
            #expect(run.status == 0, "\(note): \(run.stderr)")
            let result = try JSONParser.parse(run.stdout).value
            #expect(result.objectValue?["value"] == members["value"], "\(note)")
            #expect(result.objectValue?["variant"] == members["variant"], "\(note)")
            #expect(result.objectValue?["reason"] == members["reason"], "\(note)")
        }
    }

    /// `flagctl eval ENV --first-install-date` against a real flagserver serving the runbook's early-user rule.
    @Test func anEnvironmentOnARealServerForAnInstallDate() throws {
        let server = try SeededFlagServer(flags: ["production": try InstallDateFixtures.runbookText(), "staging": try InstallDateFixtures.productionText()])
        defer { server.stop() }
        let key = ["--context", "installId=0FEE0000-0000-4000-8000-000000000042", "premiumFeaturesLocked"]
        let early = try server.flagctl(["eval", "production", "--first-install-date", "2026-11-20T08:15:00Z"] + key)
        #expect(early.stdout == "premiumFeaturesLocked = false (variant rule-1, reason TARGETING_MATCH)\n", "\(early.stderr)")
        let late = try server.flagctl(["eval", "production", "--first-install-date", "2027-03-01T00:00:01+00:00"] + key)
        #expect(late.stdout == "premiumFeaturesLocked = true (variant rule-2, reason TARGETING_MATCH)\n", "\(late.stderr)")
        let unknown = try server.flagctl(["eval", "production"] + key)
        #expect(unknown.stdout == "premiumFeaturesLocked = false (variant default, reason DEFAULT)\n", "\(unknown.stderr)")
        let tester = try server.flagctl(["eval", "production@1", "--context", "installId=9F1C2D7E-0000-4000-8000-000000000001",
                                           "premiumFeaturesLocked"])
        #expect(tester.stdout == "premiumFeaturesLocked = true (variant rule-0, reason TARGETING_MATCH)\n", "the testers' rule stays first")
    }
}
