import FlagKit
import Testing

/// The API's own header names are wire contract: renaming one breaks every deployed client.
@Suite struct APIHeaderTests {
    @Test func changeMessageIsTheDocumentedName() {
        #expect(APIHeader.changeMessage == "X-Change-Message")
    }
}

@Suite struct APIHeaderWebhookTests {
    @Test func webhookHeadersAreTheDocumentedNames() {
        // docs/api.md and docs/governance.md name these; a receiver's verification code reads them.
        #expect([APIHeader.webhookID, APIHeader.webhookEvent, APIHeader.webhookAttempt, APIHeader.webhookSignature]
            == ["Symi-Webhook-Id", "Symi-Webhook-Event", "Symi-Webhook-Attempt", "Symi-Webhook-Signature"])
    }
}
