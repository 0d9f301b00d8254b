import TestSupport
import Testing
@testable import FlagOFREP

@Suite struct TokenBucketRateLimiterTests {
    @Test func allowsABurstThenLimits() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 2, burst: 3, now: clock.nanoseconds))
        for _ in 0..<3 { #expect(limiter.acquire("a") == .allowed) }
        #expect(limiter.acquire("a") == .limited(retryAfterSeconds: 1))
    }

    @Test func refillsAtTheRate() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 2, burst: 2, now: clock.nanoseconds))
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") != .allowed)
        clock.advance(seconds: 0.5)
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") != .allowed)
        clock.advance(seconds: 10)
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") != .allowed)
    }

    @Test func retryAfterIsWholeSecondsRoundedUp() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 0.25, burst: 1, now: clock.nanoseconds))
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") == .limited(retryAfterSeconds: 4))
        clock.advance(seconds: 2.5)
        #expect(limiter.acquire("a") == .limited(retryAfterSeconds: 2))
    }

    @Test func clientsHaveSeparateBuckets() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 1, now: clock.nanoseconds))
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") != .allowed)
        #expect(limiter.acquire("b") == .allowed)
    }

    @Test func refusesBadConfiguration() {
        #expect(TokenBucketRateLimiter(rate: 0, burst: 1) == nil)
        #expect(TokenBucketRateLimiter(rate: -1, burst: 1) == nil)
        #expect(TokenBucketRateLimiter(rate: .infinity, burst: 1) == nil)
        #expect(TokenBucketRateLimiter(rate: 1, burst: 0.5) == nil)
        #expect(TokenBucketRateLimiter(rate: 1, burst: .nan) == nil)
        #expect(TokenBucketRateLimiter(rate: 1, burst: 1, maximumClients: 0) == nil)
    }

    @Test func forgetsIdleClientsPastTheBound() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 1, maximumClients: 3, now: clock.nanoseconds))
        for name in ["a", "b", "c"] { #expect(limiter.acquire(name) == .allowed) }
        #expect(limiter.trackedClients == 3)
        clock.advance(seconds: 5)
        #expect(limiter.acquire("d") == .allowed)
        #expect(limiter.trackedClients == 1)
    }

    @Test func busyClientsAreDroppedRatherThanGrowingWithoutBound() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 1, maximumClients: 2, now: clock.nanoseconds))
        for index in 0..<50 { _ = limiter.acquire("client-\(index)") }
        #expect(limiter.trackedClients <= 2)
    }

    @Test func isExactUnderConcurrentUse() async throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 100, now: clock.nanoseconds))
        let allowed = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<50).reduce(0) { count, _ in count + (limiter.acquire("shared") == .allowed ? 1 : 0) } }
            }
            return await group.reduce(0, +)
        }
        #expect(allowed == 100)
    }

    @Test func realClockIsMonotonic() {
        let a = TokenBucketRateLimiter.monotonicNanoseconds()
        let b = TokenBucketRateLimiter.monotonicNanoseconds()
        #expect(b >= a)
    }
}
