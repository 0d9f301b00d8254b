import Testing
@testable import FlagKit

@Suite struct DocumentDiffTests {
    private func production() throws -> FlagDocument { try FlagDocument.decode(TestSupport.bytes("flags/production.json")) }

    /// Edits a document through its JSON, as a person edits the file.
    private func edited(_ document: FlagDocument, _ edit: (inout [String: JSONValue], inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        var flags = document.jsonValue.objectValue?["flags"]?.objectValue ?? [:]
        var cohorts = document.jsonValue.objectValue?["cohorts"]?.objectValue ?? [:]
        edit(&flags, &cohorts)
        return try FlagDocument(validating: ["flags": .object(flags), "cohorts": .object(cohorts)])
    }

    @Test func identicalDocumentsHaveAnEmptyDiff() throws {
        let diff = DocumentDiff(from: try production(), to: try production())
        #expect(diff.isEmpty)
        #expect(diff.lines.isEmpty)
        #expect(diff.jsonValue.objectValue?["identical"] == true)
    }

    @Test func thePaidLaunchFlip() throws {
        let old = try production()
        let new = try edited(old) { flags, _ in
            var flag = flags["premiumFeaturesLocked"]?.objectValue ?? [:]
            flag["default"] = true
            flags["premiumFeaturesLocked"] = .object(flag)
            var banner = flags["showIntroFreeSubscriptionBanner"]?.objectValue ?? [:]
            banner["default"] = false
            flags["showIntroFreeSubscriptionBanner"] = .object(banner)
        }
        let diff = DocumentDiff(from: old, to: new)
        #expect(diff.changedFlags == [
            FlagChange(key: "premiumFeaturesLocked", changes: [.defaultValue(from: false, to: true)]),
            FlagChange(key: "showIntroFreeSubscriptionBanner", changes: [.defaultValue(from: true, to: false)]),
        ])
        #expect(diff.text == """
        ~ flag premiumFeaturesLocked
            default: false -> true
        ~ flag showIntroFreeSubscriptionBanner
            default: true -> false
        """)
    }

    @Test func rulesAreAlignedSoAnInsertionIsOneAddition() throws {
        let old = [Rule(cohort: "internal", value: true), Rule(cohort: "beta", value: true, rollout: Rollout(percent: 12.5))]
        let new = [Rule(cohort: "english", value: false), Rule(cohort: "internal", value: true),
                   Rule(cohort: "beta", value: true, rollout: Rollout(percent: 25))]
        #expect(FlagChange.ruleChanges(from: old, to: new) == [
            .ruleAdded(index: 0, rule: new[0]),
            .ruleChanged(oldIndex: 1, newIndex: 2, from: old[1], to: new[2]),
        ])
        let change = FlagChange.Change.ruleChanged(oldIndex: 1, newIndex: 2, from: old[1], to: new[2])
        #expect(DocumentDiff.describe(change) == "~ rule 1 (now 2) [cohort beta]: rollout 12.5% -> 25%")
        #expect(FlagChange.ruleChanges(from: new, to: old) == [
            .ruleRemoved(index: 0, rule: new[0]),
            .ruleChanged(oldIndex: 2, newIndex: 1, from: new[2], to: old[1]),
        ])
    }

    @Test func reportsAddedRemovedFlagsCohortsAndEveryKindOfFlagChange() throws {
        let old = try FlagDocument.decode("""
        {"flags": {
          "a": {"type": "boolean", "default": false, "description": "old", "requires": {"b": true}},
          "b": {"type": "boolean", "default": true},
          "gone": {"type": "string", "default": "x"}
        }, "cohorts": {"beta": {"channel": {"eq": "testflight"}}, "old": {"country": {"eq": "DE"}}}}
        """)
        let new = try FlagDocument.decode("""
        {"flags": {
          "a": {"type": "string", "default": "on", "salt": "s1", "rules": [{"cohort": "beta", "value": "beta"}]},
          "b": {"type": "boolean", "default": true},
          "fresh": {"type": "integer", "default": 1, "rules": [{"value": 2, "rollout": 10}]}
        }, "cohorts": {"beta": {"channel": {"in": ["testflight", "debug"]}}, "new": {"platform": {"eq": "ios"}}}}
        """)
        let diff = DocumentDiff(from: old, to: new)
        #expect(Set(diff.addedFlags.keys) == ["fresh"])
        #expect(Set(diff.removedFlags.keys) == ["gone"])
        #expect(Set(diff.addedCohorts.keys) == ["new"])
        #expect(Set(diff.removedCohorts.keys) == ["old"])
        #expect(diff.changedCohorts.map(\.name) == ["beta"])
        #expect(diff.text == """
        ~ flag a
            type: boolean -> string
            description: "old" -> (none)
            default: false -> "on"
            salt: (none) -> "s1" (every rollout of this flag is reshuffled)
            no longer requires b = true
            + rule 0: cohort beta: "beta"
        + flag fresh: integer, default 1
            rule 0: everyone, rollout 10%: 2
        - flag gone: string, default "x"
        ~ cohort beta
            was: {"channel":{"eq":"testflight"}}
            now: {"channel":{"in":["testflight","debug"]}}
        + cohort new: {"platform":{"eq":"ios"}}
        - cohort old: {"country":{"eq":"DE"}}
        """)
        let json = diff.jsonValue
        #expect(json.objectValue?["identical"] == false)
        let changes = json.objectValue?["flags"]?.objectValue?["changed"]?.arrayValue?.first?.objectValue?["changes"]?.arrayValue
        #expect(changes?.map { $0.objectValue?["kind"] } == ["type", "description", "default", "salt", "requires", "ruleAdded"])
    }
}
