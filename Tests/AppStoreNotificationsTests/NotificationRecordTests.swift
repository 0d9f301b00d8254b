import AppStoreNotifications
import Testing

@Suite struct NotificationRecordTests {
    /// A new record keeps what it was given and knows nothing else.
    @Test func aNewRecordHasOnlyWhatItWasGiven() {
        let record = NotificationRecord(notificationUUID: "u", notificationType: "TEST", signedDate: 1, receivedAt: 2,
                                        environment: "Sandbox")
        #expect(record.subtype == nil && record.productID == nil && record.subscription == nil)
        #expect(record.signedDate == 1 && record.receivedAt == 2 && record.environment == "Sandbox")
    }
}
