import FlagKit
import Testing
@testable import FlagCtlKit

/// The report's text on fixed answers: an infinite bound, a mismatch, an arm without a price, the explicit route's
/// answer (no flag).
@Suite struct ExperimentReportTextTests {
    @Test func boundsMismatchAndMissingPrices() throws {
        let answer = try JSONParser.parse(#"""
            {"from": "2026-12-01T00:00:00.000Z", "to": "2026-12-03T00:00:00.000Z", "alpha": 0.05, "appStoreEnvironment": "Sandbox",
             "arms": [{"name": "a", "share": 12.5, "listPrice": null, "currency": null, "started": 3, "introStarts": 1,
                       "introConversions": 0, "refunds": 0, "revenueAtListPrice": null},
                      {"name": "b/winback", "share": 87.5, "listPrice": 4.99, "currency": "EUR", "started": 0, "introStarts": 0,
                       "introConversions": 0, "refunds": 0, "revenueAtListPrice": 0}],
             "comparisons": [{"first": 0, "second": 1, "ratio": null, "lower": 0.4, "upper": null, "pValue": 0.0004,
                              "decided": true, "verdict": "a starts more per share"}],
             "sampleRatioChecks": [{"arms": [0, 1], "pValue": 0.0002, "alpha": 0.001, "mismatch": true}],
             "notKnown": ["Apple's commission (15 % or 30 %)", "taxes"]}
            """#).value.objectValue ?? [:]
        let lines = ExperimentReportText.render(answer).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "2026-12-01 to 2026-12-03, Sandbox notifications")
        #expect(lines[2].split(separator: " ") == ["a", "12.5%", "-", "3", "1", "0", "0", "-"])
        #expect(lines[3].split(separator: " ") == ["b/winback", "87.5%", "4.99", "EUR", "0", "0", "0", "0", "0.00", "EUR"])
        #expect(lines.contains("  a vs b/winback: ∞ [0.40, ∞], p = 4.0e-04: a starts more per share"))
        #expect(lines.contains { $0.hasPrefix("sample-ratio check (a, b/winback, same terms): p = 2.0e-04: MISMATCH") })
        #expect(lines.contains("not known from the notifications, so in no figure: Apple's commission (15 % or 30 %); taxes"))
    }
}
