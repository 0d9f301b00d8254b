import Glibc
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

    /// A blocking sleep, not `Task.sleep`: a task's wake-up waits for a free thread of the cooperative pool, which the
    /// suites beside it may hold for seconds; the upper bound is only a safety net.
    @Test func theClockMovesForwardWithTime() {
        let before = MonotonicClock.nanoseconds()
        usleep(20_000)
        let after = MonotonicClock.nanoseconds()
        #expect(after >= before + 20_000_000)
        #expect(after < before + 20_000_000_000)
    }
}
