import AppStoreTestSupport
import CommandLineKit
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl outcomes`: its options, its table, and the table and JSON of a real `flagserver` that received notifications.
@Suite struct OutcomesCommandTests {
    private func parsed(_ arguments: [String]) -> OutcomesCommand? {
        if case .run(let command, _) = FlagCtl.parse(["outcomes"] + arguments) { return command as? OutcomesCommand }
        return nil
    }

    private func usageError(_ arguments: [String]) -> String? {
        if case .usageError(let error) = FlagCtl.parse(["outcomes"] + arguments) { return error.message }
        return nil
    }

    @Test func readsItsOptions() throws {
        let command = try #require(parsed(["--from", "2026-11-30", "--to", "2026-12-04T12:00:00+01:00", "--bucket", "hour",
                                           "--product", "app.symi.plus.monthly", "--environment", "Sandbox", "--json"]))
        #expect(command.from == 1_796_083_200_000 - 86_400_000 && command.to == 1_796_382_000_000)
        #expect(command.bucket == "hour" && command.product == "app.symi.plus.monthly" && command.json)
        #expect(command.query == "from=2026-11-30T00:00:00.000Z&to=2026-12-04T11:00:00.000Z&bucket=hour&product=app.symi.plus.monthly"
            + "&environment=Sandbox")
        #expect(usageError(["--environment", "sandbox"]) == "--environment 'sandbox' must be Production, Sandbox, Xcode or LocalTesting")
        #expect(parsed([])?.query == "", "the server's defaults")
        #expect(usageError(["--bucket", "week"]) == "--bucket 'week' must be hour or day")
        #expect(usageError(["--from", "2026-12-02", "--to", "2026-12-01"]) == "--from must be before --to")
        #expect(usageError(["--from", "tomorrow"])?.hasPrefix("--from 'tomorrow' is not an RFC 3339 time") == true)
        #expect(usageError(["--product", ""]) == "--product must be 1 to 200 bytes")
    }

    @Test func theTableShowsTheMainMetricsAndEveryOtherThatIsNotZero() throws {
        var metrics: [JSONValue] = []
        for name in ["started", "initialBuys", "introStarts", "introConversions", "renewals", "autoRenewOff", "refunds",
                     "billingProblems", "expired", "tests", "active"] { metrics.append(.string(name)) }
        func counts(_ values: [String: Int64]) -> JSONValue { .object(values.mapValues { .integer($0) }) }
        let report: [String: JSONValue] = [
            "bucket": "day", "metrics": .array(metrics),
            "buckets": ["2026-11-30T00:00:00.000Z", "2026-12-01T00:00:00.000Z"],
            "series": .array([counts(["started": 2, "initialBuys": 2, "active": 2]), counts(["renewals": 1, "active": 2])]),
            "totals": counts(["started": 2, "initialBuys": 2, "renewals": 1, "active": 2]),
        ]
        let lines = OutcomesCommand.table(report).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].split(separator: " ") == ["DAY", "started", "initialBuys", "introStarts", "introConversions", "renewals",
                                                     "autoRenewOff", "refunds", "billingProblems", "expired", "active"],
                "tests is zero everywhere: not shown; initialBuys is not: shown")
        #expect(lines[1].split(separator: " ") == ["2026-11-30", "2", "2", "0", "0", "0", "0", "0", "0", "0", "2"])
        #expect(lines[3].split(separator: " ") == ["total", "2", "2", "0", "0", "1", "0", "0", "0", "0", "2"])
        #expect(OutcomesCommand.label("2026-12-01T13:00:00.000Z", hourly: true) == "2026-12-01 13:00")
    }

    @Test func showsWhatARealServerReceived() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = try AppStoreTestCA()
        try ca.writeRoot(to: directory + "/root.pem")
        let server = try SeededFlagServer(arguments: ["--appstore-root-certificate", directory + "/root.pem", "--appstore-bundle-id",
                                                      "app.symi.journal", "--appstore-app-apple-id", "6450000001"])
        defer { server.stop() }
        let signer = AppStoreTestSigner(ca: ca)
        var start = AppStoreTestNotification()
        start.transaction?.offerType = 1
        var renewal = AppStoreTestNotification()
        renewal.notificationType = "DID_RENEW"
        renewal.subtype = nil
        renewal.signedDate = start.signedDate + 2 * 86_400_000
        var refund = AppStoreTestNotification()
        refund.notificationType = "REFUND"
        refund.subtype = nil
        refund.signedDate = start.signedDate + 86_400_000
        refund.transaction?.originalTransactionID = "2000000999999999"
        refund.renewal?.originalTransactionID = "2000000999999999"
        for notification in [start, renewal, refund] {
            let answer = try await RawHTTP.request(port: server.process.port, method: "POST", path: "/v1/appstore/notifications",
                                                   headers: [("Content-Type", "application/json")], body: try notification.body(signer))
            #expect(answer.status == 200, "\(answer.text)")
        }
        let shown = try server.flagctl(["outcomes", "--from", "2026-11-30", "--to", "2026-12-03"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 5, "\(shown.stdout)")
        let header = try #require(lines.first)
        #expect(header.first == "DAY" && header.contains("introStarts") && header.contains("initialBuys"))
        func column(_ row: [String], _ name: String) -> String? { header.firstIndex(of: name).map { row[$0] } }
        #expect(lines[1].first == "2026-11-30" && column(lines[1], "started") == "1" && column(lines[1], "introStarts") == "1")
        #expect(column(lines[2], "refunds") == "1")
        #expect(column(lines[3], "renewals") == "1" && column(lines[3], "introConversions") == "1")
        #expect(lines[4].first == "total" && column(lines[4], "started") == "1" && column(lines[4], "refunds") == "1")

        // --json: the server's answer byte for byte.
        let json = try server.flagctl(["outcomes", "--from", "2026-11-30", "--to", "2026-12-03", "--json"])
        let direct = try await RawHTTP.request(port: server.process.port, method: "GET",
                                               path: "/v1/appstore/outcomes?from=2026-11-30T00:00:00.000Z&to=2026-12-03T00:00:00.000Z",
                                               headers: [("Authorization", "Bearer \(server.writerToken)")])
        #expect(json.status == 0 && json.stdout == direct.text)
        // A reader may not: 2 with the server's refusal.
        let reader = try server.token(name: "viewer", role: "reader")
        let refused = try server.flagctl(["outcomes"], environment: server.environment(token: .value(reader)))
        #expect(refused.status == 2 && refused.stderr.contains("403"))
    }
}
