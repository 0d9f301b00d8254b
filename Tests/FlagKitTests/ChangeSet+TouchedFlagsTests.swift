import Testing
@testable import FlagKit

/// Touched flags: changed flags, users of changed cohorts (also through cohort references), and dependants.
@Suite struct ChangeSetTouchedFlagsTests {
    static let base = """
        {"flags": {
            "monetizationEnabled": {"type": "boolean", "default": true},
            "premiumFeaturesLocked": {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true},
                                      "rules": [{"cohort": "internal", "value": true}]},
            "paywallV2": {"type": "boolean", "default": false, "requires": {"premiumFeaturesLocked": false}},
            "paywallV2Copy": {"type": "string", "default": "x", "requires": {"paywallV2": true}},
            "staffBanner": {"type": "boolean", "default": false, "rules": [{"cohort": "staff", "value": true}]},
            "english": {"type": "string", "default": "de", "rules": [{"cohort": "en", "value": "en"}]}},
         "cohorts": {
            "internal": {"installId": {"in": ["a"]}},
            "staff": {"any": [{"cohort": "internal"}, {"country": {"eq": "DE"}}]},
            "en": {"locale": {"startsWith": "en"}}}}
        """

    static func document(_ json: String) throws -> FlagDocument { try FlagDocument.decode(json) }

    static func edited(_ edit: (inout [String: JSONValue], inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        let root = try document(base).jsonValue.objectValue ?? [:]
        var flags = root["flags"]?.objectValue ?? [:]
        var cohorts = root["cohorts"]?.objectValue ?? [:]
        edit(&flags, &cohorts)
        return try FlagDocument(validating: ["flags": .object(flags), "cohorts": .object(cohorts)])
    }

    static func touched(_ edit: (inout [String: JSONValue], inout [String: JSONValue]) -> Void) throws -> [String] {
        let base = try document(base)
        let proposed = try edited(edit)
        return ChangeSet(base: base, proposed: proposed).touchedFlags(base: base, proposed: proposed)
    }

    @Test func aChangedCohortTouchesItsUsersDirectlyThroughReferencesAndTheirDependants() throws {
        let touched = try Self.touched { _, cohorts in cohorts["internal"] = ["installId": ["in": ["a", "b"]]] }
        // premiumFeaturesLocked uses `internal`; staffBanner uses `staff`, which refers to `internal`;
        // paywallV2 requires premiumFeaturesLocked, and paywallV2Copy requires paywallV2.
        #expect(touched == ["paywallV2", "paywallV2Copy", "premiumFeaturesLocked", "staffBanner"])
    }

    @Test func aChangedFlagTouchesItselfAndWhatRequiresItTransitively() throws {
        let touched = try Self.touched { flags, _ in
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        #expect(touched == ["monetizationEnabled", "paywallV2", "paywallV2Copy", "premiumFeaturesLocked"])
    }

    @Test func anUnrelatedChangeTouchesOnlyItself() throws {
        #expect(try Self.touched { flags, _ in flags["english"] = ["type": "string", "default": "fr"] } == ["english"])
        #expect(try Self.touched { _, cohorts in cohorts["en"] = ["locale": ["startsWith": "en-"]] } == ["english"])
    }

    /// A rule that only the base has (the change removes it) and one that only the proposal has both count.
    @Test func referencesAreReadInBothDocuments() throws {
        let removesTheRuleAndChangesTheCohort = try Self.touched { flags, cohorts in
            flags["staffBanner"] = ["type": "boolean", "default": false]
            cohorts["en"] = ["locale": ["startsWith": "en-"]]
        }
        #expect(removesTheRuleAndChangesTheCohort == ["english", "staffBanner"])
        let base = try Self.document(Self.base)
        let proposed = try Self.edited { flags, cohorts in
            cohorts["beta"] = ["channel": ["eq": "testflight"]]
            flags["monetizationEnabled"] = ["type": "boolean", "default": true, "rules": [["cohort": "beta", "value": false]]]
        }
        // Only the proposal's new rule uses `beta`; from the base's side, the cohort's addition touches nothing.
        let changeSet = ChangeSet(cohorts: ["beta": ["channel": ["eq": "testflight"]]])
        #expect(changeSet.touchedFlags(base: base, proposed: proposed)
            == ["monetizationEnabled", "paywallV2", "paywallV2Copy", "premiumFeaturesLocked"])
        #expect(changeSet.touchedFlags(base: base, proposed: base).isEmpty)
    }

    @Test func aRemovedFlagIsTouchedAndSoAreFlagsThatRequiredIt() throws {
        let touched = try Self.touched { flags, _ in
            flags["paywallV2Copy"] = nil
            flags["paywallV2"] = nil
        }
        #expect(touched == ["paywallV2", "paywallV2Copy"])
    }

    /// The governance example: production's `internal` cohort protects premiumFeaturesLocked.
    @Test func productionInternalCohortTouchesPremiumFeaturesLocked() throws {
        let base = try FlagDocument.decode(TestSupport.bytes("flags/production.json"))
        var cohorts = base.cohorts.mapValues(\.jsonValue)
        cohorts["internal"] = ["installId": ["in": ["9F1C2D7E-0000-4000-8000-000000000099"]]]
        let proposed = try FlagDocument(validating: ["flags": .object(base.flags.mapValues(\.jsonValue)), "cohorts": .object(cohorts)])
        let touched = ChangeSet(base: base, proposed: proposed).touchedFlags(base: base, proposed: proposed)
        #expect(touched.contains("premiumFeaturesLocked"))
        #expect(!touched.contains("monetizationEnabled"))
    }
}
