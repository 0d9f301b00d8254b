import FlagServiceTestSupport
import FlagStore
import Testing
@testable import FlagService

/// The backoff of failed deliveries: doubling from the base, jittered within ±20 %, 8 attempts.
@Suite struct WebhookRetryPolicyTests {
    @Test func waitsDoubleFromTheBaseWithoutJitterAtTheMiddle() {
        let policy = WebhookRetryPolicy()
        // jitter 0.5 is the factor 1.0: the schedule docs/governance.md promises.
        #expect((1...7).map { policy.delayMilliseconds(afterAttempt: $0, jitter: 0.5) } == [1000, 2000, 4000, 8000, 16000, 32000, 64000])
        #expect(WebhookRetryPolicy(baseMilliseconds: 50).delayMilliseconds(afterAttempt: 3, jitter: 0.5) == 200)
    }

    @Test func jitterStaysWithinTwentyPercent() {
        let policy = WebhookRetryPolicy()
        #expect(policy.delayMilliseconds(afterAttempt: 2, jitter: 0) == 1600)
        #expect(policy.delayMilliseconds(afterAttempt: 2, jitter: 0.999_999) == 2400)
        #expect(policy.delayMilliseconds(afterAttempt: 2, jitter: -5) == 1600 && policy.delayMilliseconds(afterAttempt: 2, jitter: 7) == 2400,
                "out-of-range jitter is clamped")
        for _ in 0..<200 {
            let delay = policy.delayMilliseconds(afterAttempt: 4, jitter: Double.random(in: 0..<1))
            #expect((6400...9600).contains(delay))
        }
    }

    @Test func aDeliveryIsRetriedUntilTheEighthAttemptFails() {
        let policy = WebhookRetryPolicy()
        #expect(policy.outcome(afterAttempt: 1, delivered: true, now: 0, jitter: 0.5) == .delivered)
        #expect(policy.outcome(afterAttempt: 1, delivered: false, now: 10_000, jitter: 0.5) == .retry(atMilliseconds: 11_000))
        #expect(policy.outcome(afterAttempt: 7, delivered: false, now: 0, jitter: 0.5) == .retry(atMilliseconds: 64_000))
        #expect(policy.outcome(afterAttempt: 8, delivered: false, now: 0, jitter: 0.5) == .failed)
        #expect(policy.outcome(afterAttempt: 8, delivered: true, now: 0, jitter: 0.5) == .delivered, "the last attempt may still succeed")
        #expect(WebhookRetryPolicy(maximumAttempts: 1).outcome(afterAttempt: 1, delivered: false, now: 0, jitter: 0) == .failed)
    }

    @Test func hugeBasesSaturateInsteadOfOverflowing() {
        let policy = WebhookRetryPolicy(baseMilliseconds: .max / 2, maximumAttempts: 40)
        #expect(policy.delayMilliseconds(afterAttempt: 30, jitter: 0.5) == .max)
        #expect(WebhookRetryPolicy(baseMilliseconds: .max / 2).delayMilliseconds(afterAttempt: 2, jitter: 0.9) == .max,
                "no overflow from the multiplication, but from the jitter")
        #expect(policy.outcome(afterAttempt: 30, delivered: false, now: 5, jitter: 0.5) == .retry(atMilliseconds: .max))
        #expect(WebhookRetryPolicy(baseMilliseconds: 0, maximumAttempts: 0) == WebhookRetryPolicy(baseMilliseconds: 1, maximumAttempts: 1))
    }
}
