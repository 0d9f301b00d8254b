import FlagKit
import Testing
@testable import FlagCtlKit

/// Samples from a file of contexts (`diff --impact --contexts FILE`).
@Suite struct ImpactSampleContextsTests {
    @Test func contextLinesKeepTheirIdsOnceThenGetFreshOnes() throws {
        let lines = """
        {"installId": "a", "locale": "en_US"}

        {"locale": "de-DE", "plan": 3}
        {"targetingKey": "t", "locale": "fr"}
        """
        let contexts = try ImpactSample.fromContextLines(Array(lines.utf8), source: "c.jsonl", count: 7, seed: 1)
        #expect(contexts.map(\.locale) == ["en_US", "de-DE", "fr", "en_US", "de-DE", "fr", "en_US"])
        #expect(contexts[0].installId == "a")
        #expect(contexts[2].installId == "t")
        #expect(contexts[1].custom["plan"] == 3)
        #expect(Set(contexts.compactMap(\.installId)).count == 7)
        let dated = try ImpactSample.fromContextLines(Array(#"{"firstInstallDate": "2026-11-20T08:15:00+01:00"}"#.utf8), source: "c", count: 1, seed: 1)
        #expect(dated.first?.firstInstallMilliseconds == 1_795_158_900_000)
    }

    @Test(arguments: [
        ("{\"a\": 1}\n[1]\n", "c.jsonl:2: must be a JSON object of attributes (got array)"),
        ("{\"a\": 1}\n{oops}\n", "c.jsonl:2: not JSON: line 1, column 2: "),
        ("\n\n", "c.jsonl:1: no contexts in the file"),
        ("{\"firstInstallDate\": \"2026-11-20T08:15:00Z\"}\n{\"firstInstallDate\": \"2026-11-20\"}\n",
         "c.jsonl:2: firstInstallDate must be an RFC 3339 date-time with an offset"),
        ("{\"firstInstallDate\": 1795158900000}\n", "c.jsonl:1: firstInstallDate must be a string, not integer"),
    ])
    func badContextFiles(content: String, message: String) {
        do {
            _ = try ImpactSample.fromContextLines(Array(content.utf8), source: "c.jsonl", count: 3, seed: 1)
            Issue.record("accepted \(content)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }
}
