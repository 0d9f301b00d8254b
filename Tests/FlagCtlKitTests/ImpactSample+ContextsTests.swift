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
    }

    @Test(arguments: [
        ("{\"a\": 1}\n[1]\n", "c.jsonl:2: must be a JSON object of attributes (got array)"),
        ("{\"a\": 1}\n{oops}\n", "c.jsonl:2: not JSON: line 1, column 2: "),
        ("\n\n", "c.jsonl:1: no contexts in the file"),
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
