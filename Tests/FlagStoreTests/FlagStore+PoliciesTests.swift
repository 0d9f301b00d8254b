import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Environment policies: the default, setting with its audit line, seeding, listing.
@Suite struct FlagStorePoliciesTests {
    static let production = EnvironmentPolicy(requestTTLHours: 48, flags: [
        "premiumFeaturesLocked": FlagPolicy(isProtected: true, owner: "monetization"),
    ])

    @Test(arguments: StoreEngine.allCases) func theDefaultWhenNoneWasSet(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(try store.policy(environment: "production") == .default)
        let record = try store.policyRecord(environment: "production")
        #expect(record.isDefault && record.updatedBy == nil)
        #expect(throws: FlagStoreError.unknownEnvironment("prod", known: ["production", "staging"])) {
            try store.policy(environment: "prod")
        }
    }

    @Test func settingStoresCanonicallyAndAuditsOldAndNew() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        let record = try store.setPolicy(environment: "production", policy: Self.production, actor: "admin", client: "192.0.2.9")
        #expect(record.policy == Self.production && record.updatedBy == "admin" && !record.isDefault)
        #expect(try store.policy(environment: "production") == Self.production)
        let audit = try #require(try store.auditEntries().first)
        #expect(audit.action == "policy.update" && audit.environment == "production" && audit.client == "192.0.2.9")
        let detail = try JSONParser.parse(audit.detail).value
        #expect(detail.objectValue?["old"] == EnvironmentPolicy.default.jsonValue)
        #expect(detail.objectValue?["new"] == Self.production.jsonValue)
        let stored = try Database(path: path, mode: .readOnly).queryFirst("SELECT policy FROM policies") { $0.text(0) }
        #expect(stored == String(decoding: Self.production.canonicalBytes, as: UTF8.self))
        // A second change audits the previous policy as old.
        try store.setPolicy(environment: "production", policy: EnvironmentPolicy(isProtected: true), actor: "admin2")
        let second = try JSONParser.parse(try #require(try store.auditEntries().first).detail).value
        #expect(second.objectValue?["old"] == Self.production.jsonValue)
        #expect(try store.policyRecord(environment: "production").updatedBy == "admin2")
    }

    @Test(arguments: StoreEngine.allCases) func seedingSetsOnlyWhereNoneWasSet(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(try store.seedPolicy(environment: "production", policy: Self.production, actor: "seed"))
        #expect(try !store.seedPolicy(environment: "production", policy: .default, actor: "seed"))
        #expect(try store.policy(environment: "production") == Self.production)
        #expect(try store.auditEntries().count == 1)
    }

    @Test(arguments: StoreEngine.allCases) func listsEveryEnvironmentWithItsPolicyInForce(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        try store.setPolicy(environment: "staging", policy: Self.production, actor: "admin")
        let all = try store.policies()
        #expect(all.map(\.environment) == ["production", "staging"])
        #expect(all[0].isDefault && all[0].policy == .default)
        #expect(all[1].policy == Self.production && all[1].updatedBy == "admin")
    }

    @Test func aStoredPolicyThatDoesNotReadBackIsCorruption() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        try store.setPolicy(environment: "production", policy: Self.production, actor: "admin")
        try Database(path: path).run(#"UPDATE policies SET policy = '{"protected": "yes"}'"#)
        #expect {
            try store.policy(environment: "production")
        } throws: { error in
            guard case FlagStoreError.database(let cause) = error else { return false }
            return cause.isCorruption && cause.message.contains("/protected")
        }
    }
}
