import AppStoreTestSupport
import CommandLineKit
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl experiment report`: its options, its query, and its report from a real `flagserver` that received
/// notifications through its receiver.
@Suite struct ExperimentCommandTests {
    private func parsed(_ arguments: [String]) -> ExperimentCommand.Report? {
        if case .run(let command, _) = FlagCtl.parse(["experiment", "report"] + arguments) { return command as? ExperimentCommand.Report }
        return nil
    }

    private func usageError(_ arguments: [String]) -> String? {
        if case .usageError(let error) = FlagCtl.parse(["experiment", "report"] + arguments) { return error.message }
        return nil
    }

    @Test func readsItsOptions() throws {
        let command = try #require(parsed(["production", "paywallProduct", "--from", "2026-11-30", "--to", "2026-12-02",
                                           "--price", "symi_plus_monthly_499=4.99 EUR", "--price", "symi_plus_monthly_399=3.5:EUR",
                                           "--appstore-environment", "Sandbox", "--json"]))
        #expect(command.environment == "production" && command.flag == "paywallProduct" && command.json)
        #expect(command.query(storeKit: nil, currency: nil) == "from=2026-11-30T00:00:00.000Z&to=2026-12-02T00:00:00.000Z"
            + "&appStoreEnvironment=Sandbox&price=symi_plus_monthly_499:4.99:EUR&price=symi_plus_monthly_399:3.5:EUR")
        // The StoreKit file's display prices fill in every product --price did not give.
        let storeKit = try StoreKitConfiguration.parse(try TestSupport.bytes("storekit/Symi.storekit"))
        #expect(ExperimentCommand.Report.currency(storeKit.storefront) == "EUR")
        let query = try #require(parsed(["production", "paywallProduct", "--price", "symi_plus_monthly_499=5 EUR"]))
            .query(storeKit: storeKit, currency: "EUR")
        #expect(query == "price=symi_plus_monthly_499:5:EUR&price=symi_plus_monthly:2.99:EUR&price=symi_plus_yearly:29.99:EUR"
            + "&price=symi_plus_monthly_399:3.99:EUR")
        #expect(usageError(["production", "paywallProduct", "--price", "symi_plus_monthly_499=4,99 EUR"])?.hasPrefix("--price 'symi_plus_monthly_499=4,99 EUR' must be") == true)
        #expect(usageError(["production", "paywallProduct", "--price", "a=1 EUR", "--price", "a=2 EUR"]) == "--price is given twice for a")
        #expect(usageError(["production", "paywallProduct", "--appstore-environment", "prod"])?.hasPrefix("--appstore-environment 'prod'") == true)
        #expect(usageError(["production", "paywallProduct", "--from", "2026-12-02", "--to", "2026-12-01"]) == "--from must be before --to")
        #expect(usageError(["production"]) != nil, "FLAG is required")
    }

    /// A start of `product` for `subscription` at `signedDate`.
    static func start(_ product: String, _ subscription: String, _ signedDate: Int64, price: Int64) -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        notification.signedDate = signedDate
        notification.transaction?.productID = product
        notification.transaction?.price = price
        notification.transaction?.originalTransactionID = subscription
        notification.renewal?.originalTransactionID = subscription
        notification.renewal?.productID = product
        return notification
    }

    @Test func reportsWhatARealServerReceived() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try AppStoreTestCA()
        try ca.writeRoot(to: directory + "/root.pem")
        let server = try SeededFlagServer(arguments: ["--appstore-root-certificate", directory + "/root.pem", "--appstore-bundle-id",
                                                      "app.symi.journal", "--appstore-app-apple-id", "6450000001"])
        defer { server.stop() }
        let split = #"{"type": "string", "default": "symi_plus_monthly_499", "rules": [{"value": "symi_plus_monthly_399", "rollout": 50}]}"#
        let put = try await RawHTTP.request(port: server.process.port, method: "PUT", path: "/v1/environments/production/flags/paywallProduct",
                                            headers: [("Authorization", "Bearer \(server.writerToken)"), ("Content-Type", "application/json"),
                                                      ("X-Change-Message", "price test")], body: Array(split.utf8))
        #expect(put.status == 200, "\(put.text)")
        let signer = AppStoreTestSigner(ca: ca)
        let day0: Int64 = 1_796_000_000_000
        var notifications = (0..<80).map { Self.start("symi_plus_monthly_399", "low-\($0)", day0 + Int64($0) * 60_000, price: 3990) }
        notifications += (0..<10).map { Self.start("symi_plus_monthly_499", "high-\($0)", day0 + Int64($0) * 60_000 + 30_000, price: 4990) }
        for notification in notifications {
            let answer = try await RawHTTP.request(port: server.process.port, method: "POST", path: "/v1/appstore/notifications",
                                                   headers: [("Content-Type", "application/json")], body: try notification.body(signer))
            #expect(answer.status == 200, "\(answer.text)")
        }
        let shown = try server.flagctl(["experiment", "report", "production", "paywallProduct", "--from", "2026-11-30", "--to", "2026-12-02",
                                        "--storekit", "storekit/Symi.storekit"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("paywallProduct in production (split since version ") == true, "\(shown.stdout)")
        #expect(lines.first?.hasSuffix("2026-11-30 to 2026-12-02, Production notifications") == true)
        let low = try #require(lines.first { $0.hasPrefix("symi_plus_monthly_399 ") }).split(separator: " ").map(String.init)
        #expect(low == ["symi_plus_monthly_399", "50%", "3.99", "EUR", "80", "0", "0", "0", "319.20", "EUR"], "\(shown.stdout)")
        let high = try #require(lines.first { $0.hasPrefix("symi_plus_monthly_499 ") }).split(separator: " ").map(String.init)
        #expect(high == ["symi_plus_monthly_499", "50%", "4.99", "EUR", "10", "0", "0", "0", "49.90", "EUR"])
        #expect(lines.contains { $0.hasPrefix("  symi_plus_monthly_399 vs symi_plus_monthly_499: 8.00 [") && $0.hasSuffix(": symi_plus_monthly_399 starts more per share") })
        #expect(lines.contains("sample-ratio check: none (no two arms show the same terms; a twin product at one price makes one possible)"))
        #expect(lines.last?.hasPrefix("not known from the notifications, so in no figure: Apple's commission (15 % or 30 %); taxes") == true)

        // The same prices at one level: the check runs, and finds the 80 against 10 a mismatch. Sandbox: nothing decided.
        let equal = try server.flagctl(["experiment", "report", "production", "paywallProduct", "--from", "2026-11-30", "--to", "2026-12-02",
                                        "--price", "symi_plus_monthly_399=4.99 EUR", "--price", "symi_plus_monthly_499=4.99 EUR"])
        #expect(equal.stdout.contains("sample-ratio check (symi_plus_monthly_399, symi_plus_monthly_499, same terms): p = ")
            && equal.stdout.contains("MISMATCH"), "\(equal.stdout)")
        let sandbox = try server.flagctl(["experiment", "report", "production", "paywallProduct", "--from", "2026-11-30", "--to", "2026-12-02",
                                          "--appstore-environment", "Sandbox"])
        #expect(sandbox.stdout.contains(": 1.00 [0.00, ∞], p = 1.000: not decided yet"), "\(sandbox.stdout)")

        // --json: the server's answer byte for byte.
        let json = try server.flagctl(["experiment", "report", "production", "paywallProduct", "--from", "2026-11-30", "--to", "2026-12-02", "--json"])
        let direct = try await RawHTTP.request(port: server.process.port, method: "GET",
                                               path: "/v1/environments/production/experiments/paywallProduct?from=2026-11-30T00:00:00.000Z&to=2026-12-02T00:00:00.000Z",
                                               headers: [("Authorization", "Bearer \(server.writerToken)")])
        #expect(json.status == 0 && json.stdout == direct.text)
        // Not an experiment: 2 with the server's refusal.
        let refused = try server.flagctl(["experiment", "report", "production", "monetizationEnabled"])
        #expect(refused.status == 2 && refused.stderr.contains("not_an_experiment"), "\(refused.stderr)")
    }
}
