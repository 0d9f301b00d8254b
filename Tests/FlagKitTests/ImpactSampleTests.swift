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

    static let earlyUsers = """
    {"flags": {"premiumFeaturesLocked": {"type": "boolean", "default": false, "rules": [
       {"cohort": "earlyUsers", "value": false}, {"cohort": "installedSinceSwitch", "value": true}]}},
     "cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                 "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}, "locale": {"startsWith": "de"}}}}
    """

    @Test func installDatesSpreadOverAWindowAroundTheBoundsWithAShareUnknown() throws {
        let pools = ImpactSample.pools(for: [try FlagDocument.decode(Self.earlyUsers)])
        #expect(pools.map(\.name) == ["firstInstallDate", "locale"])
        let switchDay: Int64 = 1_803_859_200_000
        let dates = try #require(pools.first)
        #expect(dates.values == ["2027-02-28T23:59:59.999Z", "2027-03-01T00:00:00.000Z", "2027-03-01T00:00:00.001Z"])
        #expect(dates.instantWindow == (switchDay - 730 * 86_400_000)...(switchDay + 365 * 86_400_000))
        #expect(pools[1].instantWindow == nil)

        let sample = ImpactSample.generate(count: 20_000, seed: 3, pools: pools)
        #expect(sample == ImpactSample.generate(count: 20_000, seed: 3, pools: pools))
        let known = sample.compactMap(\.firstInstallMilliseconds)
        #expect(sample.allSatisfy { $0.firstInstallDate == nil || $0.firstInstallMilliseconds != nil }, "every generated date parses")
        let unknownShare = Double(sample.count - known.count) / Double(sample.count)
        #expect(abs(unknownShare - 0.05) < 0.01, "\(unknownShare)")
        let atBounds = known.filter { abs($0 - switchDay) <= 1 }.count
        #expect(abs(Double(atBounds) / Double(sample.count) - 0.05) < 0.01)
        #expect(known.allSatisfy { dates.instantWindow?.contains($0) == true })
        // Two years before the switch to one year after it, uniformly: about two thirds of the spread dates are early.
        let spread = known.filter { abs($0 - switchDay) > 1 }
        let early = Double(spread.filter { $0 < switchDay }.count) / Double(spread.count)
        #expect(abs(early - 730.0 / 1095.0) < 0.02, "\(early)")
    }

    @Test func anInstallDateMentionedOnlyWithExistsStillGetsDates() throws {
        let document = try FlagDocument.decode(#"{"flags": {}, "cohorts": {"known": {"firstInstallDate": {"exists": true}}}}"#)
        let pools = ImpactSample.pools(for: [document])
        #expect(pools == [ImpactSample.AttributePool(name: "firstInstallDate", values: [nil],
                                                     instantWindow: ImpactSample.instantWindowWithoutBounds)])
        let sample = ImpactSample.generate(count: 1_000, seed: 1, pools: pools)
        #expect(sample.filter { $0.firstInstallMilliseconds != nil }.count > 850)
    }
}
