import Foundation
import Testing
@testable import FlagKit

/// The generated sample: deterministic, across the cohorts' conditions.
@Suite struct ImpactSampleTests {
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
}
