import FlagKit
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// Which changes need a second person: the full decision, and the writer's fast path for one-flag writes,
/// which must give the same answer for every edit.
@Suite struct ProtectionDecisionTests {
    static func production() throws -> FlagDocument {
        try FlagDocument.decode(Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("flags/production.json"))))
    }

    static func policy() throws -> EnvironmentPolicy {
        try EnvironmentPolicy.decode(Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("flags/policy/production.json"))))
    }

    @Test func productionsPolicyProtectsTheLockAndTheMasterSwitchAndWhatDependsOnThem() throws {
        let base = try Self.production()
        let policy = try Self.policy()
        func decide(_ key: String, _ value: JSONValue) throws -> ProtectionDecision {
            let proposed = try FlagEdit.value(value).apply(to: base, key: key)
            return ProtectionDecision(policy: policy, changeSet: ChangeSet(base: base, proposed: proposed), base: base, proposed: proposed)
        }
        // The brief's schedule: the banner requires monetizationEnabled, but nothing protected requires the banner.
        let banner = try decide("showIntroFreeSubscriptionBanner", false)
        #expect(banner.touchedFlags == ["showIntroFreeSubscriptionBanner"])
        #expect(!banner.needsApproval)
        #expect(try decide("premiumFeaturesLocked", true).protectedFlags == ["premiumFeaturesLocked"])
        // The master switch is protected, and the lock requires it: both are named.
        let master = try decide("monetizationEnabled", false)
        #expect(master.protectedFlags == ["monetizationEnabled", "premiumFeaturesLocked"])
        #expect(master.touchedFlags.contains("showIntroFreeSubscriptionBanner"))
        // Changing a cohort the lock's rules use touches the lock.
        var root = try #require(base.jsonValue.objectValue)
        var cohorts = try #require(root["cohorts"]?.objectValue)
        cohorts["internal"] = ["installId": ["in": ["someone-else"]]]
        root["cohorts"] = .object(cohorts)
        let cohortEdit = try FlagDocument(validating: .object(root))
        let viaCohort = ProtectionDecision(policy: policy, changeSet: ChangeSet(base: base, proposed: cohortEdit), base: base,
                                           proposed: cohortEdit)
        #expect(viaCohort.protectedFlags == ["premiumFeaturesLocked"])
        // A protected environment protects every change.
        let flip = try FlagEdit.value(false).apply(to: base, key: "showIntroFreeSubscriptionBanner")
        let everything = ProtectionDecision(policy: EnvironmentPolicy(isProtected: true), changeSet: ChangeSet(base: base, proposed: flip),
                                            base: base, proposed: flip)
        #expect(everything.protectedFlags == ["showIntroFreeSubscriptionBanner"])
    }

    @Test func theFastPathAgreesWithTheFullDecisionForEveryFlagAndPolicy() throws {
        let base = try Self.production()
        let keys = base.sortedFlagKeys
        // Every single-flag protection, none, the repository's, and the whole environment.
        var policies = [EnvironmentPolicy(), try Self.policy(), EnvironmentPolicy(isProtected: true)]
        for key in keys { policies.append(EnvironmentPolicy(flags: [key: FlagPolicy(isProtected: true)])) }
        policies.append(EnvironmentPolicy(flags: ["notInTheDocument": FlagPolicy(isProtected: true), "x": FlagPolicy(owner: "o")]))
        var compared = 0
        for policy in policies {
            let entry = PolicyTable.Entry(policy)
            for key in keys + ["brandNew"] {
                // A new value for an existing flag, and a new flag that requires a protected one.
                let edit: FlagEdit = base.flags[key].map { flag in
                    .definition(["type": .string(flag.type.rawValue), "default": flag.defaultValue,
                                 "description": "edited"])
                } ?? .definition(["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]])
                let proposed = try edit.apply(to: base, key: key)
                let full = ProtectionDecision(policy: policy, changeSet: ChangeSet(base: base, proposed: proposed), base: base,
                                              proposed: proposed)
                let fast = ProtectionDecision.flagEditNeedsApproval(entry, key: key, base: base, proposed: proposed)
                #expect(fast == full.needsApproval, "\(key) under \(policy.jsonValue.canonicalString)")
                compared += 1
            }
        }
        #expect(!policies.isEmpty && !keys.isEmpty && compared > policies.count, "the loops compared flags, not only the absent key")
    }

    @Test func prerequisitesAreFollowedTransitivelyInBothDocumentsOnce() throws {
        // c requires b requires a; d requires a and b (a shared prerequisite is expanded once).
        let document = try FlagDocument(validating: [
            "flags": [
                "a": ["type": "boolean", "default": true],
                "b": ["type": "boolean", "default": true, "requires": ["a": true]],
                "c": ["type": "boolean", "default": true, "requires": ["b": true]],
                "d": ["type": "boolean", "default": true, "requires": ["a": true, "b": true]],
                "e": ["type": "boolean", "default": true],
            ],
        ])
        #expect(ProtectionDecision.requires("c", reaching: "a", base: nil, proposed: document))
        #expect(ProtectionDecision.requires("d", reaching: "a", base: nil, proposed: document))
        #expect(!ProtectionDecision.requires("a", reaching: "c", base: nil, proposed: document))
        #expect(!ProtectionDecision.requires("e", reaching: "a", base: nil, proposed: document))
        // A prerequisite only the base has still counts (it is being removed: the flag depended on it).
        let without = try FlagDocument(validating: ["flags": ["a": ["type": "boolean", "default": true],
                                                              "e": ["type": "boolean", "default": true]]])
        let withEdge = try FlagDocument(validating: ["flags": ["a": ["type": "boolean", "default": true],
                                                               "e": ["type": "boolean", "default": true, "requires": ["a": true]]]])
        #expect(ProtectionDecision.requires("e", reaching: "a", base: withEdge, proposed: without))
        #expect(!ProtectionDecision.requires("e", reaching: "a", base: without, proposed: without))
        // Nothing protected: no work at all, whatever the edit.
        #expect(!ProtectionDecision.flagEditNeedsApproval(PolicyTable.Entry(.default), key: "a", base: nil, proposed: document))
    }
}
