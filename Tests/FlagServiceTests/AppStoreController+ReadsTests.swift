import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// `GET /v1/appstore/notifications` and `/v1/appstore/outcomes` over notifications received by the real receiver.
@Suite struct AppStoreControllerReadsTests {
    /// 2026-11-30T00:53:20Z, the test notifications' default `signedDate`.
    static let day0: Int64 = 1_796_000_000_000
    static let day: Int64 = 86_400_000

    /// One notification of subscription `subscription` at `day0 + days`.
    static func notification(_ type: String, _ subtype: String?, subscription: String, days: Int64,
                             offerType: Int? = nil, discount: String? = nil) -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        notification.notificationType = type
        notification.subtype = subtype
        notification.signedDate = day0 + days * day
        notification.transaction?.originalTransactionID = subscription
        notification.renewal?.originalTransactionID = subscription
        notification.transaction?.offerType = offerType
        notification.transaction?.offerDiscountType = discount
        if type == "DID_CHANGE_RENEWAL_STATUS" { notification.renewal?.autoRenewStatus = 0 }
        return notification
    }

    /// A free-trial start converting at its first renewal (A), a start whose auto-renew is turned off (B), a
    /// resubscription refunded (C), and App Store Connect's test.
    static let known: [AppStoreTestNotification] = [
        notification("SUBSCRIBED", "INITIAL_BUY", subscription: "A", days: 0, offerType: 1, discount: "FREE_TRIAL"),
        notification("SUBSCRIBED", "INITIAL_BUY", subscription: "B", days: 1),
        notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", subscription: "B", days: 2),
        notification("SUBSCRIBED", "RESUBSCRIBE", subscription: "C", days: 2),
        notification("REFUND", nil, subscription: "C", days: 3),
        notification("DID_RENEW", nil, subscription: "A", days: 7),
        AppStoreTestNotification.test(environment: "Production"),
    ]

    static func withKnownServer(_ body: (TestServer) async throws -> Void) async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        for notification in known {
            let response = try await server.postNotification(try fixture.body(notification))
            guard response.status == 200 else { throw TestFailure("\(notification.notificationType): \(response.status) \(response.text)") }
        }
        try await body(server)
    }

    @Test func outcomesCountTheKnownSetByDay() async throws {
        try await Self.withKnownServer { server in
            let response = try await server.get("/v1/appstore/outcomes?from=2026-11-30&to=2026-12-10&bucket=day",
                                                headers: [("Authorization", "Bearer \(server.writerToken)")])
            #expect(response.status == 200, "\(response.text)")
            let body = try response.json()
            #expect(body["from"] == "2026-11-30T00:00:00.000Z" && body["to"] == "2026-12-10T00:00:00.000Z")
            #expect(body["bucket"] == "day" && body["product"] == .null)
            #expect(body["metrics"]?.arrayValue?.first == "started")
            #expect(body["metrics"]?.arrayValue?.count == OutcomeMetric.allCases.count)
            let buckets = try #require(body["buckets"]?.arrayValue)
            #expect(buckets.count == 10 && buckets.first == "2026-11-30T00:00:00.000Z")
            let totals = try #require(body["totals"])
            let expected: [String: Int64] = ["started": 3, "initialBuys": 2, "resubscribes": 1, "introStarts": 1,
                                             "freeTrialStarts": 1, "introConversions": 1, "freeTrialConversions": 1,
                                             "renewals": 1, "autoRenewOff": 1, "refunds": 1, "tests": 1, "expired": 0, "active": 2]
            for (metric, count) in expected { #expect(totals[metric] == .integer(count), "\(metric): \(String(describing: totals[metric]))") }
            let series = try #require(body["series"]?.arrayValue)
            #expect(series.count == 10)
            #expect(series[0]["started"] == 1 && series[0]["tests"] == 1)
            #expect(series[2]["started"] == 1 && series[2]["autoRenewOff"] == 1)
            #expect(series[7]["introConversions"] == 1 && series[7]["renewals"] == 1)
            let groups = try #require(body["groups"]?.arrayValue)
            #expect(groups.contains { $0["product"] == "app.symi.plus.monthly" && $0["offerType"] == 1 })
            // One product asked for, by hour: the same starts, 240 buckets.
            let hourly = try await server.get("/v1/appstore/outcomes?from=2026-11-30&to=2026-12-10&bucket=hour&product=app.symi.plus.monthly",
                                              headers: [("Authorization", "Bearer \(server.writerToken)")])
            #expect(hourly.status == 200)
            #expect(try hourly.json()["buckets"]?.arrayValue?.count == 240)
            #expect(try hourly.json()["totals"]?["started"] == 3 && (hourly.json()["product"]) == "app.symi.plus.monthly")
            #expect(try hourly.json()["totals"]?["tests"] == 0, "a TEST has no product")
            // One App Store environment's figures: every known notification is Production.
            let auth = [("Authorization", "Bearer \(server.writerToken)")]
            let production = try await server.get("/v1/appstore/outcomes?from=2026-11-30&to=2026-12-10&environment=Production", headers: auth)
            #expect(try production.json()["totals"]?["started"] == 3)
            let sandbox = try await server.get("/v1/appstore/outcomes?from=2026-11-30&to=2026-12-10&environment=Sandbox", headers: auth)
            #expect(try sandbox.json()["totals"]?["started"] == 0 && sandbox.json()["totals"]?["active"] == 0)
        }
    }

    @Test func theListIsInSignedOrderWithEveryField() async throws {
        try await Self.withKnownServer { server in
            let response = try await server.get("/v1/appstore/notifications?from=2026-11-01T00:00:00Z&to=2026-12-31&limit=3",
                                                headers: [("Authorization", "Bearer \(server.writerToken)")])
            #expect(response.status == 200, "\(response.text)")
            let items = try #require(try response.json()["notifications"]?.arrayValue)
            #expect(items.count == 3)
            #expect(items.map { $0["notificationType"] } == ["SUBSCRIBED", "TEST", "SUBSCRIBED"]
                || items.map { $0["notificationType"] } == ["TEST", "SUBSCRIBED", "SUBSCRIBED"])
            let first = try #require(items.first { $0["offerType"] == 1 })
            for field in ["notificationUUID", "notificationType", "subtype", "signedDate", "receivedAt", "environment", "productId",
                          "offerType", "offerIdentifier", "offerDiscountType", "price", "currency", "storefront", "transactionReason",
                          "expiresDate", "expirationIntent", "revocationReason", "priceIncreaseStatus", "autoRenewStatus",
                          "isInBillingRetryPeriod", "gracePeriodExpiresDate", "subscription"] {
                #expect(first[field] != nil, "\(field) missing")
            }
            #expect(first["offerDiscountType"] == "FREE_TRIAL" && first["price"] == 4990 && first["currency"] == "EUR")
            #expect(first["signedDate"] == .string(RFC3339.string(milliseconds: Self.day0)))
            #expect(first["subscription"]?.stringValue?.count == 64, "the keyed hash, never Apple's identifier")
            #expect(!response.text.contains("2000000123456789") && !response.text.contains("7e3fb20b"))
        }
    }

    @Test func parametersAreCheckedAndNamed() async throws {
        try await Self.withKnownServer { server in
            let auth = [("Authorization", "Bearer \(server.writerToken)")]
            for (query, parameter) in [("from=yesterday", "from"), ("to=2026-13-01", "to"), ("from=2026-12-02&to=2026-12-01", "from"),
                                       ("bucket=week", "bucket"), ("product=", "product"), ("environment=production", "environment"),
                                       ("from=2026-01-01&to=2027-01-01&bucket=hour", "from")] {
                let response = try await server.get("/v1/appstore/outcomes?\(query)", headers: auth)
                #expect(response.status == 400, "\(query)")
                #expect(try response.errorCode() == "invalid_parameter")
                #expect(try response.json()["error"]?["parameter"] == .string(parameter), "\(query)")
            }
            let limit = try await server.get("/v1/appstore/notifications?limit=0", headers: auth)
            #expect(try limit.status == 400 && (limit.errorCode()) == "invalid_parameter")
            // Defaults: the week before now.
            let now = ServiceMetrics.wallMilliseconds()
            let recent = try await server.get("/v1/appstore/notifications", headers: auth)
            let inLastWeek = Self.known.filter { $0.signedDate >= now - 7 * Self.day && $0.signedDate < now - 60_000 }.count
            let count = try #require(try recent.json()["notifications"]?.arrayValue?.count)
            #expect(recent.status == 200)
            #expect(count >= inLastWeek && count <= inLastWeek + 1, "\(count) in the week before now, \(inLastWeek) known")
        }
    }

    @Test func onlyAnUnscopedWriterReads() async throws {
        try await Self.withKnownServer { server in
            for path in ["/v1/appstore/notifications", "/v1/appstore/outcomes"] {
                #expect(try await server.get(path).status == 401)
                let reader = try await server.get(path, headers: [("Authorization", "Bearer \(server.readerToken)")])
                #expect(reader.status == 403)
                let scoped = try server.token("staging-writer-\(path.count)", .writer, environments: ["staging"])
                let refused = try await server.get(path, headers: [("Authorization", "Bearer \(scoped)")])
                #expect(try refused.status == 403 && (refused.errorCode()) == "environment_not_allowed")
                #expect(try await server.get(path, headers: [("Authorization", "Bearer \(server.adminToken)")]).status == 200)
            }
        }
    }
}
