import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// `GET /v1/environments/{env}/experiments/{flag}` and `GET /v1/appstore/experiment` over notifications received by
/// the real receiver, with the split published through the real write routes.
@Suite struct AppStoreControllerExperimentsTests {
    static let day0 = AppStoreControllerReadsTests.day0
    static let day = AppStoreControllerReadsTests.day

    /// A start (or renewal, or refund) of `subscription` on `product` at `signedDate`, paid `price` milliunits EUR.
    static func notification(_ type: String, _ subtype: String?, product: String, subscription: String, signedDate: Int64,
                             price: Int64) -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        notification.notificationType = type
        notification.subtype = subtype
        notification.signedDate = signedDate
        notification.transaction?.originalTransactionID = subscription
        notification.transaction?.transactionID = "\(subscription)-\(type)"
        notification.transaction?.productID = product
        notification.transaction?.price = price
        notification.renewal?.originalTransactionID = subscription
        notification.renewal?.productID = product
        notification.renewal?.autoRenewProductID = product
        notification.renewal?.renewalPrice = price
        return notification
    }

    /// 80 starts at 3.99 (one renewed), 10 at 4.99 (one refunded), signed from `start` on, `step` apart.
    static func population(start: Int64, step: Int64 = 300_000) -> [AppStoreTestNotification] {
        var all: [AppStoreTestNotification] = []
        for index in 0..<80 {
            all.append(notification("SUBSCRIBED", "INITIAL_BUY", product: "symi_plus_monthly_399", subscription: "low-\(index)",
                                    signedDate: start + Int64(index) * step, price: 3990))
        }
        for index in 0..<10 {
            all.append(notification("SUBSCRIBED", "INITIAL_BUY", product: "symi_plus_monthly_499", subscription: "high-\(index)",
                                    signedDate: start + Int64(index) * 2 * step + step, price: 4990))
        }
        all.append(notification("DID_RENEW", nil, product: "symi_plus_monthly_399", subscription: "low-0",
                                signedDate: start + 85 * step, price: 3990))
        all.append(notification("REFUND", nil, product: "symi_plus_monthly_499", subscription: "high-0",
                                signedDate: start + 85 * step, price: 4990))
        return all
    }

    static let split = """
        {"type": "string", "default": "symi_plus_monthly_499",
         "rules": [{"value": "symi_plus_monthly_399", "rollout": 50}]}
        """

    static func withServer(_ body: (TestServer, AppStoreFixture) async throws -> Void) async throws {
        let fixture = try AppStoreFixture()
        let server = try TestServer(options: fixture.options)
        defer { server.stop() }
        try await body(server, fixture)
    }

    static func post(_ notifications: [AppStoreTestNotification], _ server: TestServer, _ fixture: AppStoreFixture) async throws {
        for notification in notifications {
            let response = try await server.postNotification(try fixture.body(notification))
            guard response.status == 200 else { throw TestFailure("\(notification.notificationType): \(response.status) \(response.text)") }
        }
    }

    static func put(_ server: TestServer, _ key: String, _ json: String) async throws -> Int {
        let response = try await server.write("PUT", "/v1/environments/production/flags/\(key)", json: json)
        guard response.status == 200 else { throw TestFailure("PUT \(key): \(response.status) \(response.text)") }
        return Int(try #require(try response.json()["version"]?.integerValue))
    }

    @Test func theFlagsSplitIsReadSinceItWasPublished() async throws {
        try await Self.withServer { server, fixture in
            let auth = [("Authorization", "Bearer \(server.writerToken)")]
            _ = try await Self.put(server, "paywallProduct", Self.split.replacingOccurrences(of: "50}", with: "30}"))
            let published = try await Self.put(server, "paywallProduct", Self.split)
            // A change to another flag leaves the split as it was.
            let head = try await Self.put(server, "billingRetryAccessDays", "9")
            // Signed a millisecond apart from now on: all on the publication's day, so inside the default range.
            try await Self.post(Self.population(start: ServiceMetrics.wallMilliseconds(), step: 1), server, fixture)
            let response = try await server.get("/v1/environments/production/experiments/paywallProduct?price=symi_plus_monthly_499:5.49:EUR",
                                                headers: auth)
            #expect(response.status == 200, "\(response.text)")
            let body = try response.json()
            #expect(body["splitSince"]?["version"] == .integer(Int64(published)) && body["version"] == .integer(Int64(head)))
            #expect(body["flag"] == "paywallProduct" && body["environment"] == "production" && body["appStoreEnvironment"] == "Production")
            let arms = try #require(body["arms"]?.arrayValue)
            #expect(arms.map { $0["product"] } == ["symi_plus_monthly_399", "symi_plus_monthly_499"])
            #expect(arms.map { $0["share"]?.doubleValue } == [50, 50])
            #expect(arms[0]["started"] == 80 && arms[0]["renewals"] == 1 && arms[0]["paidPeriods"] == 81 && arms[0]["refunds"] == 0)
            #expect(arms[0]["listPrice"]?.doubleValue == 3.99 && arms[0]["currency"] == "EUR" && arms[0]["listPriceSource"] == "notifications")
            #expect(arms[0]["revenueAtListPrice"]?.doubleValue == 323.19)
            #expect(arms[1]["started"] == 10 && arms[1]["refunds"] == 1 && arms[1]["listPriceSource"] == "parameter")
            #expect(arms[1]["listPrice"]?.doubleValue == 5.49 && arms[1]["revenueAtListPrice"]?.doubleValue == 49.41)
            let comparison = try #require(body["comparisons"]?.arrayValue?.first)
            #expect(comparison["decided"] == true && comparison["verdict"] == "symi_plus_monthly_399 starts more per share", "\(comparison)")
            #expect(comparison["ratio"]?.doubleValue == 8)
            let lower = try #require(comparison["lower"]?.doubleValue)
            let upper = try #require(comparison["upper"]?.doubleValue)
            #expect(lower > 1 && lower < 8 && upper > 8, "\(lower)...\(upper)")
            #expect(body["sampleRatioChecks"]?.arrayValue == [], "different prices: no check")
            #expect(body["notKnown"]?.arrayValue?.first == "Apple's commission (15 % or 30 %)")
        }
    }

    @Test func explicitArmsAndTheSampleRatioCheck() async throws {
        try await Self.withServer { server, fixture in
            let auth = [("Authorization", "Bearer \(server.writerToken)")]
            try await Self.post(Self.population(start: Self.day0), server, fixture)
            // Equal terms (both at 4.99) but 80 against 10 starts on a 50/50 split: the check sees the mismatch.
            let path = "/v1/appstore/experiment?from=2026-11-30&to=2026-12-02&arm=symi_plus_monthly_399:50:4.99:EUR"
                + "&arm=symi_plus_monthly_499:50:4.99:EUR&alpha=0.01"
            let response = try await server.get(path, headers: auth)
            #expect(response.status == 200, "\(response.text)")
            let body = try response.json()
            #expect(body["from"] == "2026-11-30T00:00:00.000Z" && body["to"] == "2026-12-02T00:00:00.000Z" && body["alpha"]?.doubleValue == 0.01)
            #expect(body["days"]?.arrayValue?.count == 2 && body["arms"]?.arrayValue?.first?["dailyStarted"]?.arrayValue == [80, 80])
            let check = try #require(body["sampleRatioChecks"]?.arrayValue?.first)
            #expect(check["arms"]?.arrayValue == [0, 1] && check["mismatch"] == true && check["alpha"]?.doubleValue == 0.001)
            // Ten starts against none decide nothing yet.
            let few = try await server.get("/v1/appstore/experiment?from=2026-11-30&to=2026-11-30T01:00:00Z"
                                           + "&arm=symi_plus_monthly_499:50&arm=symi_plus_yearly:50", headers: auth)
            #expect(few.status == 200, "\(few.text)")
            let comparison = try #require(try few.json()["comparisons"]?.arrayValue?.first)
            #expect(comparison["decided"] == false && comparison["verdict"] == "not decided yet")
            // Sandbox holds none of them.
            let sandbox = try await server.get(path + "&appStoreEnvironment=Sandbox", headers: auth)
            #expect(try sandbox.json()["arms"]?.arrayValue?.map { $0["started"] } == [0, 0])
        }
    }

    @Test func refusalsNameWhatIsWrong() async throws {
        try await Self.withServer { server, _ in
            let auth = [("Authorization", "Bearer \(server.writerToken)")]
            let notAnExperiment = try await server.get("/v1/environments/production/experiments/monetizationEnabled", headers: auth)
            #expect(try notAnExperiment.status == 422 && notAnExperiment.errorCode() == "not_an_experiment")
            #expect(notAnExperiment.text.contains("string flag"))
            let unknown = try await server.get("/v1/environments/production/experiments/noSuchFlag", headers: auth)
            #expect(try unknown.status == 404 && unknown.errorCode() == "flag_not_found")
            let environment = try await server.get("/v1/environments/nowhere/experiments/paywallProduct", headers: auth)
            #expect(environment.status == 404)
            for (query, parameter) in [("arm=a:50&arm=b:x", "arm"), ("arm=a:50&arm=b:50:4,99:EUR", "arm"), ("arm=a%20b:50", "arm"),
                                       ("arm=a:50&arm=b:50&alpha=0.7", "alpha"), ("arm=a:50&arm=b:50&appStoreEnvironment=prod", "appStoreEnvironment"),
                                       ("arm=a:50&arm=b:50&from=2026-12-02&to=2026-12-01", "from")] {
                let response = try await server.get("/v1/appstore/experiment?\(query)", headers: auth)
                #expect(response.status == 400, "\(query): \(response.text)")
                #expect(try response.json()["error"]?["parameter"] == .string(parameter), "\(query): \(response.text)")
            }
            let one = try await server.get("/v1/appstore/experiment?arm=a:50", headers: auth)
            #expect(try one.status == 422 && one.errorCode() == "invalid_experiment" && one.json()["error"]?["field"] == "arms")
            let twice = try await server.get("/v1/appstore/experiment?arm=a:50&arm=a:50", headers: auth)
            #expect(try twice.status == 422 && twice.json()["error"]?["field"] == "arms[1]")
            _ = try await Self.put(server, "paywallProduct", Self.split)
            let price = try await server.get("/v1/environments/production/experiments/paywallProduct?price=symi_plus_monthly_499:4.99", headers: auth)
            #expect(try price.status == 400 && price.json()["error"]?["parameter"] == "price")
        }
    }

    @Test func onlyAnUnscopedWriterReads() async throws {
        try await Self.withServer { server, _ in
            _ = try await Self.put(server, "paywallProduct", Self.split)
            for path in ["/v1/environments/production/experiments/paywallProduct", "/v1/appstore/experiment?arm=a:1&arm=b:1"] {
                #expect(try await server.get(path).status == 401)
                #expect(try await server.get(path, headers: [("Authorization", "Bearer \(server.readerToken)")]).status == 403)
                let scoped = try server.token("production-writer-\(path.count)", .writer, environments: ["production"])
                let refused = try await server.get(path, headers: [("Authorization", "Bearer \(scoped)")])
                #expect(try refused.status == 403 && refused.errorCode() == "environment_not_allowed")
                #expect(try await server.get(path, headers: [("Authorization", "Bearer \(server.writerToken)")]).status == 200)
            }
        }
    }
}
