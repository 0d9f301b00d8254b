import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// `GET`/`PUT .../policy` over real HTTP, and seeding policies from `flags/policy/` at first start.
@Suite struct FlagServicePolicyTests {
    static let path = "/v1/environments/production/policy"

    @Test func anAdminSetsAPolicyAndTheNextWriteObeysIt() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let initial = try await server.get(Self.path)
        #expect(initial.status == 200)
        #expect(try initial.json()["policy"] == ["protected": false, "requestTTLHours": 72, "flags": [:]])
        #expect(try initial.json()["updatedBy"] == .null)
        let policy = #"{"flags": {"showIntroFreeSubscriptionBanner": {"protected": true, "owner": "growth"}}, "requestTTLHours": 2}"#
        #expect(try await server.write("PUT", Self.path, json: policy, message: nil).status == 403, "a writer may not")
        let set = try await server.write("PUT", Self.path, json: policy, token: server.adminToken, message: nil)
        #expect(set.status == 200)
        #expect(try set.json()["updatedBy"] == "test-admin")
        #expect(try set.json()["policy"]?["flags"]?["showIntroFreeSubscriptionBanner"] == ["protected": true, "owner": "growth"])
        #expect(try await server.get(Self.path).json()["policy"]?["requestTTLHours"] == 2)
        let flip = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false")
        #expect(flip.status == 202, "in force for the very next write")
        let expires = try #require(try flip.json()["change"]?["expiresAt"]?.stringValue)
        let created = try #require(try flip.json()["change"]?["createdAt"]?.stringValue)
        #expect(try RFC3339.milliseconds(parsing: expires) - RFC3339.milliseconds(parsing: created) <= 2 * 3_600_000 + 1_000)
        let audit = try server.store.auditEntries(query: AuditQuery(action: "policy.update"))
        #expect(audit.entries.first?.actor == "test-admin")
        #expect(audit.entries.first?.client == "127.0.0.1")
    }

    @Test func anInvalidPolicyIsRefusedWithEveryPath() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let invalid = #"{"protected": "yes", "requestTTLHours": 0, "flags": {"a": {"owner": "", "removeAfter": "2027-02-30", "color": 1}}, "x": 1}"#
        let refused = try await server.write("PUT", Self.path, json: invalid, token: server.adminToken, message: nil)
        #expect(refused.status == 422)
        #expect(try refused.errorCode() == "invalid_policy")
        let paths = try refused.json()["error"]?["details"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(Set(paths) == ["/x", "/protected", "/requestTTLHours", "/flags/a/owner", "/flags/a/removeAfter", "/flags/a/color"])
        #expect(try await server.write("PUT", Self.path, json: "{", token: server.adminToken, message: nil).errorCode() == "malformed_json")
        #expect(try await server.get(Self.path).json()["updatedBy"] == .null, "nothing was set")
    }

    @Test func policyFilesSeedOnlyEnvironmentsWithoutOne() throws {
        try withTemporaryStore { store in
            let logger = ServiceLogger(minimumLevel: .off)
            let flags = repositoryRoot.appendingPathComponent("flags").path
            try FlagService.seed(store: store, flagsDirectory: flags, logger: logger)
            #expect(try FlagService.seedPolicies(store: store, policyDirectory: flags + "/policy", logger: logger) == ["production", "staging"])
            #expect(try store.policy(environment: "production").isProtected(flag: "premiumFeaturesLocked"))
            #expect(try store.policy(environment: "production").isProtected(flag: "monetizationEnabled"))
            #expect(try store.policy(environment: "production").flags["showIntroFreeSubscriptionBanner"]?.owner == "growth")
            #expect(try !store.policy(environment: "staging").isProtected(flag: "premiumFeaturesLocked"), "staging is for trying")
            // A second start leaves what an admin set since.
            try store.setPolicy(environment: "production", policy: .default, actor: "admin")
            #expect(try FlagService.seedPolicies(store: store, policyDirectory: flags + "/policy", logger: logger).isEmpty)
            #expect(try store.policy(environment: "production") == .default)
            #expect(try FlagService.seedPolicies(store: store, policyDirectory: flags + "/nowhere", logger: logger).isEmpty)
        }
    }

    @Test func aBadPolicyFileStopsTheStartNamingIt() throws {
        try withTemporaryStore { store in
            let logger = ServiceLogger(minimumLevel: .off)
            try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path, logger: logger)
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Data(#"{"requestTTLHours": 1000}"#.utf8).write(to: URL(fileURLWithPath: directory + "/production.json"))
            #expect {
                try FlagService.seedPolicies(store: store, policyDirectory: directory, logger: logger)
            } throws: { error in
                "\(error)".contains("production.json is not a valid policy") && "\(error)".contains("/requestTTLHours")
            }
            try FileManager.default.removeItem(atPath: directory + "/production.json")
            try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/qa.json"))
            #expect {
                try FlagService.seedPolicies(store: store, policyDirectory: directory, logger: logger)
            } throws: { error in
                "\(error)".contains("there is no environment 'qa'")
            }
            #expect(try store.policyRecord(environment: "production").isDefault, "nothing was set")
        }
    }
}
