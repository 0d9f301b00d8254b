import FlagServiceTestSupport
import Synchronization
import Testing
@testable import FlagService

/// The failed-authentication throttle on a stepped clock.
@Suite struct FailedAuthThrottleTests {
    final class Clock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: UInt64) { nanoseconds.add(seconds * 1_000_000_000, ordering: .relaxed) }
        var now: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    @Test func answersFailuresWith401UpToTheLimitThen429ForTheRestOfTheWindow() {
        let clock = Clock()
        let throttle = FailedAuthThrottle(limit: 3, window: .seconds(60), now: clock.now)
        for attempt in 1...3 {
            #expect(throttle.retryAfter("a") == nil, "\(attempt)")
            #expect(throttle.recordFailure("a") == .unauthorized(failures: attempt))
        }
        #expect(throttle.retryAfter("a") == 60)
        #expect(throttle.recordFailure("a") == .refused(retryAfterSeconds: 60, first: true))
        #expect(throttle.recordFailure("a") == .refused(retryAfterSeconds: 60, first: false), "one log line per window")
        #expect(throttle.retryAfter("b") == nil)
        #expect(throttle.recordFailure("b") == .unauthorized(failures: 1), "other addresses are not affected")
        clock.advance(seconds: 45)
        #expect(throttle.retryAfter("a") == 15)
        clock.advance(seconds: 15)
        #expect(throttle.retryAfter("a") == nil)
        #expect(throttle.recordFailure("a") == .unauthorized(failures: 1))
        #expect(throttle.unauthorizedCount.load(ordering: .relaxed) == 5)
        #expect(throttle.refusedCount.load(ordering: .relaxed) == 2)
        #expect(throttle.exposition().contains(#"flagserver_auth_failures_total{answer="throttled"} 2"#))
    }

    @Test func aLimitOfZeroNeverRefuses() {
        let throttle = FailedAuthThrottle(limit: 0)
        for _ in 0..<100 {
            if case .refused = throttle.recordFailure("a") { Issue.record("a limit of 0 refused a failure") }
        }
        #expect(throttle.retryAfter("a") == nil)
    }

    @Test func ipv6AddressesCountPerSlash64() {
        #expect(FailedAuthThrottle.key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(FailedAuthThrottle.key("2001:0db8:0001:0002:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(FailedAuthThrottle.key("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(FailedAuthThrottle.key("192.0.2.7") == "192.0.2.7")
        #expect(FailedAuthThrottle.key("not an address") == "not an address")
        let throttle = FailedAuthThrottle(limit: 2)
        // An attacker rotating through the addresses of its /64 is one client.
        for index in 0..<5 { _ = throttle.recordFailure("2001:db8:1:2::\(String(index + 1, radix: 16))") }
        #expect(throttle.trackedClients == 1)
        #expect(throttle.retryAfter("2001:db8:1:2::ffff") != nil)
        #expect(throttle.retryAfter("2001:db8:1:3::1") == nil)
    }

    @Test func theTableStaysWithinItsBoundAndForgetsTheOldestWindowFirst() {
        let clock = Clock()
        let throttle = FailedAuthThrottle(limit: 3, window: .seconds(60), maximumClients: 100, now: clock.now)
        for _ in 0..<4 { _ = throttle.recordFailure("first") }
        #expect(throttle.retryAfter("first") != nil)
        clock.advance(seconds: 1)
        // A flood of distinct addresses (IPv6 /64s rotated by an attacker).
        for index in 0..<1000 { _ = throttle.recordFailure("2001:db8:\(String(index, radix: 16))::1") }
        #expect(throttle.trackedClients == 100)
        #expect(throttle.evictedCount.load(ordering: .relaxed) == 901)
        #expect(throttle.retryAfter("first") == nil, "the oldest window went first")
        #expect(throttle.retryAfter("2001:db8:3e7::1") == nil && throttle.trackedClients == 100)
        // Expired windows leave on their own.
        clock.advance(seconds: 61)
        _ = throttle.recordFailure("late")
        #expect(throttle.trackedClients == 1)
    }
}
