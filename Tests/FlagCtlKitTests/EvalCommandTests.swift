import FlagKit
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
        #expect(lines.count == 11)
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
}
