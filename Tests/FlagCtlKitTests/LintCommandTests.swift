import FlagKit
import Foundation
import Testing

/// `flagctl lint` through the real binary: one fixture per rule, and Symi's own flags.
@Suite struct LintCommandTests {
    @Test func symisFlagsHaveNoFindings() throws {
        let run = try TestSupport.run(["lint", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 0)
        #expect(run.stdout == "flags/production.json: no findings\nflags/staging.json: no findings\n")
    }

    @Test func oneFindingPerRuleWithFlagRuleAndPath() throws {
        let directory = try TestSupport.directory(with: [
            "clean.json": TestSupport.cleanDocument(),
            "price.json": TestSupport.cleanDocument(introMessage: "Symi Plus für 2,99 €/Monat"),
            "forever.json": TestSupport.cleanDocument(introMessage: "Symi bleibt für immer gratis"),
            "links.json": TestSupport.cleanDocument(legalLinks: #"{"type": "json", "default": {"privacyPolicyURL": "http://symi.app/p"}}"#),
            "lock.json": TestSupport.cleanDocument(premium: #"{"type": "boolean", "default": false, "rules": [{"cohort": "beta", "value": true}]}"#,
                                                   monetization: #"{"type": "boolean", "default": false, "rules": [{"cohort": "internal", "value": true}]}"#),
            "invalid.json": #"{"flags": {"legalLinks": {"type": "jsonn", "default": {}}}}"#,
        ])
        let files = ["clean.json", "price.json", "forever.json", "links.json", "lock.json", "invalid.json"]
        let run = try TestSupport.run(["lint"] + files, in: directory)
        #expect(run.status == 1)
        #expect(run.stderr.isEmpty)
        let expected = """
        clean.json: no findings
        price.json: /flags/introOfferMessage/default: [no-hardcoded-price] flag introOfferMessage: hard-coded price "2,99 €": show the price from StoreKit instead (brief section 9)
        forever.json: /flags/introOfferMessage/default: [no-forever-free] flag introOfferMessage: "für immer gratis" promises free use forever while monetization is planned (brief section 9)
        links.json: /flags/legalLinks/default/privacyPolicyURL: [legal-links] flag legalLinks: "http://symi.app/p" must use https (got http)
        links.json: /flags/legalLinks/default/termsOfUseURL: [legal-links] flag legalLinks: missing termsOfUseURL
        lock.json: /flags/premiumFeaturesLocked/rules/0: [premium-lock-needs-monetization] flag premiumFeaturesLocked: rule 0 locks premium features for cohort beta, where monetizationEnabled can be false (its default); add "requires": {"monetizationEnabled": true}
        invalid.json: /flags/legalLinks/type: [valid-document] flag legalLinks: unknown type "jsonn" (expected one of: boolean, string, integer, number, json)

        """
        #expect(run.stdout == expected)
    }

    @Test func jsonOutputParses() throws {
        let directory = try TestSupport.directory(with: ["price.json": TestSupport.cleanDocument(introMessage: "$3 only")])
        let run = try TestSupport.run(["lint", "--json", "price.json"], in: directory)
        #expect(run.status == 1)
        let parsed = try JSONParser.parse(run.stdout.trimmingCharacters(in: .newlines)).value
        #expect(parsed == ["file": "price.json", "findings": [["flag": "introOfferMessage", "rule": "no-hardcoded-price",
                                                                 "path": "/flags/introOfferMessage/default",
                                                                 "message": #"hard-coded price "$3": show the price from StoreKit instead (brief section 9)"#]]])
    }

    @Test func unreadableFileExits2() throws {
        let run = try TestSupport.run(["lint", "flags/production.json", "flags/nope.json"])
        #expect(run.status == 2)
        #expect(run.stderr == "flagctl: cannot read flags/nope.json: No such file or directory (open, errno 2)\n")
    }

    @Test func usageErrorAndHelp() throws {
        let run = try TestSupport.run(["lint", "--fix", "x.json"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("flagctl: error: unknown option '--fix'\nUsage: flagctl lint [--json] <file>...\n"))
        let help = try TestSupport.run(["help", "lint"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("premium-lock-needs-monetization"))
    }
}
