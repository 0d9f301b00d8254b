import Testing
@testable import FlagClient

@Suite struct RefreshPolicyTests {
    let policy = RefreshPolicy(minimumInterval: .seconds(30), backoffBase: .seconds(2), backoffCap: .seconds(900))

    @Test func ceilingDoublesUpToTheCap() {
        let ceilings = [0, 1, 2, 3, 9, 10, 63, 1000, Int.max].map { policy.backoffCeiling(afterFailures: $0) }
        #expect(ceilings == [.zero, .seconds(2), .seconds(4), .seconds(8), .seconds(512), .seconds(900),
                             .seconds(900), .seconds(900), .seconds(900)])
    }

    @Test func fullJitterSpansZeroToCeiling() {
        var random = SeededRandom(state: 42)
        let delays = (0..<2000).map { _ in RefreshPolicy.seconds(policy.backoffDelay(afterFailures: 3, using: &random)) }
        #expect(delays.allSatisfy { (0...8).contains($0) })
        // Full jitter, not "equal jitter" (which never goes below half the ceiling).
        #expect((delays.min() ?? 8) < 0.5)
        #expect((delays.max() ?? 0) > 7.5)
    }

    @Test func extremesOfTheRandomSource() {
        var zero = FixedRandom(value: 0)
        var top = FixedRandom(value: .max)
        #expect(policy.backoffDelay(afterFailures: 4, using: &zero) == .zero)
        let highest = RefreshPolicy.seconds(policy.backoffDelay(afterFailures: 4, using: &top))
        #expect(highest > 15.9 && highest <= 16)
        #expect(policy.backoffDelay(afterFailures: 0, using: &top) == .zero)
    }

    @Test func negativeSettingsCountAsZero() {
        let odd = RefreshPolicy(minimumInterval: .seconds(-1), backoffBase: .seconds(-2), backoffCap: .seconds(-3))
        var random = FixedRandom(value: .max)
        #expect(odd.backoffDelay(afterFailures: 5, using: &random) == .zero)
        #expect(RefreshPolicy.seconds(.seconds(-1)) == 0)
    }
}
