import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing
@testable import FlagService

/// `GET .../stale?days=N` over real HTTP: the history decides, the policy names owners and dates.
@Suite struct FlagServiceStaleTests {
    @Test func listsConstantFlagsAndFlagsPastTheirDateWithOwners() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let policy = #"{"flags": {"legalLinks": {"owner": "legal", "removeAfter": "2020-01-01"}, "introOfferMessage": {"owner": "growth"}}}"#
        #expect(try await server.write("PUT", "/v1/environments/production/policy", json: policy, token: server.adminToken, message: nil).status == 200)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false").status == 200)
        // Zero days: what the current version gives everyone one value for.
        let now = try await server.get("/v1/environments/production/stale?days=0")
        #expect(now.status == 200)
        let flags = try #require(try now.json()["flags"]?.arrayValue)
        let keys = flags.compactMap { $0["key"]?.stringValue }
        #expect(keys.contains("showIntroFreeSubscriptionBanner"))
        #expect(!keys.contains("introOfferMessage"), "its English rule gives another value")
        #expect(!keys.contains("premiumFeaturesLocked"), "its rule for internal testers gives another value")
        let banner = try #require(flags.first { $0["key"] == "showIntroFreeSubscriptionBanner" })
        #expect(banner["value"] == false)
        #expect(banner["reasons"] == ["constant"])
        #expect(try now.json()["version"] == 2)
        // Thirty days: the history is younger than that, so nothing is constant, but the date is past.
        let month = try await server.get("/v1/environments/production/stale")
        #expect(try month.json()["days"] == 30)
        #expect(try month.json()["flags"] == [["key": "legalLinks", "owner": "legal", "removeAfter": "2020-01-01",
                                               "reasons": ["past_removal_date"], "value": nil, "constantSince": nil]])
        #expect(try await server.get("/v1/environments/production/stale?days=-1").errorCode() == "invalid_parameter")
        #expect(try await server.get("/v1/environments/nope/stale").status == 404)
    }
}
