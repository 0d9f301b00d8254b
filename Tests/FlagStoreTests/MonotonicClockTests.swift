import Testing
@testable import FlagStore

@Suite struct MonotonicClockTests {
    @Test func durationsBecomeNanosecondsAndNegativeOnesZero() {
        #expect(MonotonicClock.nanoseconds(.seconds(2)) == 2_000_000_000)
        #expect(MonotonicClock.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(MonotonicClock.nanoseconds(.nanoseconds(7)) == 7)
        #expect(MonotonicClock.nanoseconds(.seconds(-3)) == 0)
        #expect(MonotonicClock.nanoseconds(.zero) == 0)
    }

    @Test func theClockMovesForwardWithTime() async throws {
        let before = MonotonicClock.nanoseconds()
        try await Task.sleep(for: .milliseconds(20))
        let after = MonotonicClock.nanoseconds()
        #expect(after >= before + 20_000_000)
        #expect(after < before + 20_000_000_000)
    }
}
