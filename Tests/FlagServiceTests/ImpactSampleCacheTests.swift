import FlagKit
import FlagService
import FlagServiceTestSupport
import Testing

/// The cache gives exactly the generated sample, and another one when the key changes.
@Suite struct ImpactSampleCacheTests {
    static let document = """
    {"flags": {"a": {"type": "boolean", "default": false, "rules": [{"cohort": "beta", "value": true}]}},
     "cohorts": {"beta": {"channel": {"in": ["testflight"]}, "appVersion": {"gte": "2.4.0"}}}}
    """

    @Test func givesTheGeneratedSampleForEachKey() throws {
        let pools = ImpactSample.pools(for: [try FlagDocument.decode(Self.document)])
        let cache = ImpactSampleCache()
        let first = cache.sample(count: 300, seed: 7, pools: pools)
        #expect(first == ImpactSample.generate(count: 300, seed: 7, pools: pools))
        #expect(cache.sample(count: 300, seed: 7, pools: pools) == first)
        #expect(cache.sample(count: 300, seed: 8, pools: pools) == ImpactSample.generate(count: 300, seed: 8, pools: pools))
        #expect(cache.sample(count: 200, seed: 8, pools: pools).count == 200)
        let fewer = Array(pools.dropFirst())
        #expect(cache.sample(count: 200, seed: 8, pools: fewer) == ImpactSample.generate(count: 200, seed: 8, pools: fewer))
    }
}
