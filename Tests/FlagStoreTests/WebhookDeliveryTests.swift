import Testing
@testable import FlagStore

/// Delivery statuses and attempts as the delivery log shows them.
@Suite struct WebhookDeliveryTests {
    @Test func statusesAreTheSchemasWords() {
        #expect(WebhookDeliveryStatus.allCases.map(\.rawValue) == ["pending", "delivered", "failed"])
    }

    @Test func anAttemptWithoutAnswerHasNoStatus() {
        let attempt = WebhookAttempt(number: 1, atMilliseconds: 5, error: "timeout after 5 s", durationMilliseconds: 5000)
        #expect(attempt.responseStatus == nil && attempt.error == "timeout after 5 s" && attempt.durationMilliseconds == 5000)
    }
}
