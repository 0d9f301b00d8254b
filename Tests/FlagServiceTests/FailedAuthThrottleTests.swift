import FlagService
import Synchronization
import Testing

/// The failed-authentication throttle on a stepped clock.
@Suite struct FailedAuthThrottleTests {
    final class Clock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: UInt64) { nanoseconds.add(seconds * 1_000_000_000, ordering: .relaxed) }
        var now: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    @Test func limitsFailuresPerClientWithinTheWindow() {
        let clock = Clock()
        let throttle = FailedAuthThrottle(limit: 3, window: .seconds(60), now: clock.now)
        for attempt in 1...3 {
            #expect(throttle.retryAfter("a") == nil, "\(attempt)")
            #expect(throttle.recordFailure("a") == attempt)
        }
        #expect(throttle.retryAfter("a") == 60)
        #expect(throttle.retryAfter("b") == nil)
        clock.advance(seconds: 45)
        #expect(throttle.retryAfter("a") == 15)
        clock.advance(seconds: 15)
        #expect(throttle.retryAfter("a") == nil)
        #expect(throttle.recordFailure("a") == 1)
    }

    @Test func memoryIsBounded() {
        let clock = Clock()
        let throttle = FailedAuthThrottle(limit: 3, window: .seconds(60), maximumClients: 100, now: clock.now)
        for index in 0..<1000 { throttle.recordFailure("client-\(index)") }
        #expect(throttle.trackedClients <= 100)
    }
}
