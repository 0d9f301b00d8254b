import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// The generated sample: deterministic, across the cohorts' conditions; and contexts files.
@Suite struct ImpactSampleTests {
    @Test func splitMixMatchesItsReferenceSequence() {
        // First outputs for seed 1234567, computed independently (Python) from Vigna's reference splitmix64.c.
        var generator = SplitMix64(seed: 1_234_567)
        #expect(generator.next() == 6_457_827_717_110_365_317)
        #expect(generator.next() == 3_203_168_211_198_807_973)
    }

    @Test func installIdsAreVersion4UUIDs() {
        var generator = SplitMix64(seed: 7)
        let ids = (0..<200).map { _ in generator.nextInstallId() }
        #expect(Set(ids).count == 200)
        for id in ids {
            let uuid = UUID(uuidString: id)
            #expect(uuid?.uuidString == id)
            #expect(Array(id)[14] == "4")
            #expect("89AB".contains(Array(id)[19]))
        }
    }

    @Test func poolsCoverEachConditionAndSomethingThatMatchesNone() throws {
        let document = try FlagDocument.decode(TestSupport.bytes("flags/staging.json"))
        let pools = ImpactSample.pools(for: [document])
        #expect(pools.map(\.name) == ["appVersion", "channel", "locale"])
        #expect(pools[0].values == [nil, "0.0.1", "2.3.9", "2.4.0", "2.4.1"])
        #expect(pools[1].values == [nil, "testflight", "zz-matches-none"])
        #expect(pools[2].values == [nil, "en", "en-ZZ", "zz-matches-none"])
    }

    @Test func theSameSeedGivesTheSameSampleAndAnotherSeedAnother() throws {
        let document = try FlagDocument.decode(TestSupport.bytes("flags/staging.json"))
        let pools = ImpactSample.pools(for: [document])
        let first = ImpactSample.generate(count: 500, seed: 42, pools: pools)
        #expect(first == ImpactSample.generate(count: 500, seed: 42, pools: pools))
        #expect(first != ImpactSample.generate(count: 500, seed: 43, pools: pools))
        // Every candidate value turns up in a sample of this size.
        #expect(Set(first.map(\.channel)) == [nil, "testflight", "zz-matches-none"])
        #expect(Set(first.map(\.appVersion)).count == 5)
    }

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
