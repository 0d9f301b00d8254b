import Foundation
import Testing
@testable import FlagClient

@Suite struct RefreshScheduleTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_910_400)
    let policy = RefreshPolicy(minimumInterval: .seconds(30), backoffBase: .seconds(2), backoffCap: .seconds(900),
                               maxRetryAfter: .seconds(3600))
    func at(_ seconds: TimeInterval) -> Date { Self.t0.addingTimeInterval(seconds) }

    @Test func firstFetchIsImmediate() {
        #expect(RefreshSchedule(policy: policy).decide(now: Self.t0) == .fetch)
    }

    @Test func minimumIntervalUnlessForced() {
        var schedule = RefreshSchedule(policy: policy)
        schedule.recordAttempt(at: at(0))
        schedule.recordSuccess(at: at(0.2))
        #expect(schedule.decide(now: at(10)) == .wait(until: at(30), reason: .minimumInterval))
        #expect(schedule.decide(now: at(10), forced: true) == .fetch)
        #expect(schedule.decide(now: at(30)) == .fetch)
        #expect(schedule.lastSuccess == at(0.2))
    }

    @Test func failuresBackOffExponentiallyUnlessForced() {
        var schedule = RefreshSchedule(policy: policy)
        var top = FixedRandom(value: .max)
        var now: TimeInterval = 0
        var waits: [TimeInterval] = []
        for _ in 1...12 {
            schedule.recordAttempt(at: at(now))
            schedule.recordFailure(at: at(now), status: nil, using: &top)
            guard case .wait(let until, .backoff) = schedule.decide(now: at(now + 30)) else {
                // The 30 s minimum interval dominates early, small backoffs.
                waits.append(30)
                now += 30
                continue
            }
            waits.append(until.timeIntervalSince(at(now)))
            #expect(schedule.decide(now: at(now + 30), forced: true) == .fetch)
            now = until.timeIntervalSince(Self.t0)
        }
        #expect(schedule.consecutiveFailures == 12)
        #expect(waits.prefix(4).allSatisfy { $0 == 30 })
        #expect(waits.dropFirst(5).prefix(2).map { $0.rounded() } == [64, 128])
        #expect(waits.suffix(2).allSatisfy { $0.rounded() == 900 })
    }

    @Test func successForgetsFailures() {
        var schedule = RefreshSchedule(policy: policy)
        schedule.recordFailure(at: at(0), status: 503, retryAfter: "600")
        schedule.recordSuccess(at: at(1))
        #expect(schedule.consecutiveFailures == 0)
        #expect(schedule.backoffUntil == nil && schedule.retryAfterUntil == nil)
        #expect(schedule.decide(now: at(2)) == .fetch)
    }

    @Test(arguments: [429, 503])
    func retryAfterIsHonouredEvenWhenForced(_ status: Int) {
        var schedule = RefreshSchedule(policy: policy)
        var zero = FixedRandom(value: 0)
        schedule.recordAttempt(at: at(0))
        schedule.recordFailure(at: at(0), status: status, retryAfter: "120", using: &zero)
        #expect(schedule.decide(now: at(60), forced: true) == .wait(until: at(120), reason: .retryAfter))
        #expect(schedule.decide(now: at(120), forced: true) == .fetch)
    }

    @Test func retryAfterAsHTTPDate() {
        var schedule = RefreshSchedule(policy: policy)
        var zero = FixedRandom(value: 0)
        schedule.recordFailure(at: at(0), status: 503, retryAfter: "Sun, 29 Nov 2026 00:05:00 GMT", using: &zero)
        #expect(schedule.decide(now: at(1)) == .wait(until: at(300), reason: .retryAfter))
    }

    @Test func retryAfterIgnoredForOtherStatusesAndGarbage() {
        var zero = FixedRandom(value: 0)
        var schedule = RefreshSchedule(policy: policy)
        schedule.recordFailure(at: at(0), status: 500, retryAfter: "600", using: &zero)
        #expect(schedule.retryAfterUntil == nil)
        schedule.recordFailure(at: at(0), status: 429, retryAfter: "later", using: &zero)
        #expect(schedule.retryAfterUntil == nil)
        #expect(schedule.decide(now: at(0.5)) == .fetch)
    }

    @Test func retryAfterIsBoundedByThePolicy() {
        var zero = FixedRandom(value: 0)
        var schedule = RefreshSchedule(policy: policy)
        schedule.recordFailure(at: at(0), status: 429, retryAfter: "31536000", using: &zero)
        #expect(schedule.decide(now: at(1), forced: true) == .wait(until: at(3600), reason: .retryAfter))
    }

    @Test func clockGoingBackwardsDoesNotStrandTheClient() {
        var top = FixedRandom(value: .max)
        var schedule = RefreshSchedule(policy: policy)
        schedule.recordAttempt(at: at(0))
        schedule.recordFailure(at: at(0), status: 429, retryAfter: "600", using: &top)
        // The user set the clock back two days: every wait now ends "far" in the future.
        #expect(schedule.decide(now: at(-172_800)) == .fetch)
    }

    @Test func latestWaitWins() {
        var top = FixedRandom(value: .max)
        var schedule = RefreshSchedule(policy: policy)
        for _ in 1...8 { schedule.recordFailure(at: at(0), status: 503, retryAfter: "5", using: &top) }
        guard case .wait(let until, .backoff(failures: 8)) = schedule.decide(now: at(1)) else {
            Issue.record("expected backoff after 8 failures to outlast Retry-After: 5")
            return
        }
        #expect(until.timeIntervalSince(at(0)).rounded() == 256)
    }
}
