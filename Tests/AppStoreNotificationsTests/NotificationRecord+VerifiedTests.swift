import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// What is kept of a verified notification: the plan's fields, the subscription as an HMAC, no buyer identifier.
@Suite struct NotificationRecordVerifiedTests {
    let key: [UInt8] = Array(0..<32)

    func verified(_ notification: AppStoreTestNotification) throws -> VerifiedNotification {
        let ca = try AppStoreTestCA()
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001,
            environments: [.production, .sandbox]))
        return try verifier.verifyNotificationBody(try notification.body(AppStoreTestSigner(ca: ca)))
    }

    @Test func everyFieldComesFromTheTransactionOrTheRenewalInfo() throws {
        var notification = AppStoreTestNotification()
        notification.notificationType = "DID_FAIL_TO_RENEW"
        notification.subtype = "GRACE_PERIOD"
        notification.transaction?.offerType = 1
        notification.transaction?.offerIdentifier = "intro"
        notification.transaction?.offerDiscountType = "FREE_TRIAL"
        notification.transaction?.revocationReason = 1
        notification.renewal?.expirationIntent = 2
        notification.renewal?.priceIncreaseStatus = 0
        notification.renewal?.isInBillingRetryPeriod = true
        notification.renewal?.gracePeriodExpiresDate = 1_797_000_000_000
        notification.renewal?.autoRenewStatus = 0
        notification.renewal?.offerType = 2
        notification.renewal?.offerIdentifier = "renewal-offer"
        let record = NotificationRecord(verified: try verified(notification), subscriptionKey: key, receivedAt: 1_796_000_000_500)
        var expected = NotificationRecord(notificationUUID: notification.notificationUUID, notificationType: "DID_FAIL_TO_RENEW",
                                          subtype: "GRACE_PERIOD", signedDate: notification.signedDate,
                                          receivedAt: 1_796_000_000_500, environment: "Production")
        expected.productID = "app.symi.plus.monthly"
        expected.offerType = 1
        expected.offerIdentifier = "intro"
        expected.offerDiscountType = "FREE_TRIAL"
        expected.price = 4990
        expected.currency = "EUR"
        expected.storefront = "DEU"
        expected.transactionReason = "PURCHASE"
        expected.expiresDate = 1_798_592_000_000
        expected.expirationIntent = 2
        expected.revocationReason = 1
        expected.priceIncreaseStatus = 0
        expected.autoRenewStatus = 0
        expected.isInBillingRetryPeriod = true
        expected.gracePeriodExpiresDate = 1_797_000_000_000
        expected.subscription = NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456789", key: key)
        #expect(record == expected)
    }

    @Test func theSubscriptionIsTheHMACOfTheOriginalTransactionID() {
        // RFC 4231 test case 2: HMAC-SHA256 of "what do ya want for nothing?" with the key "Jefe".
        #expect(NotificationRecord.subscriptionHash(originalTransactionID: "what do ya want for nothing?", key: Array("Jefe".utf8))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let one = NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456789", key: key)
        #expect(one == NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456789", key: key))
        #expect(one.count == 64 && one.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(one != NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456780", key: key))
        #expect(one != NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456789", key: Array(1..<33)))
    }

    @Test func noBuyerIdentifierIsKept() throws {
        var notification = AppStoreTestNotification()
        notification.transaction?.appAccountToken = "5b0c2cd5-7d3a-4c44-9c3f-0d7e4e0b1a11"
        notification.transaction?.transactionID = "2000000999999999"
        let record = NotificationRecord(verified: try verified(notification), subscriptionKey: key, receivedAt: 0)
        let everything = String(describing: record)
        for identifier in ["5b0c2cd5-7d3a-4c44-9c3f-0d7e4e0b1a11", "5b0c2cd5", "2000000999999999", "2000000123456789"] {
            #expect(!everything.contains(identifier), "\(identifier) in \(everything)")
        }
        #expect(Mirror(reflecting: record).children.allSatisfy { $0.label?.lowercased().contains("token") == false })
    }

    @Test func theOfferComesFromTheRenewalInfoWhenThereIsNoTransaction() throws {
        var notification = AppStoreTestNotification()
        notification.notificationType = "DID_CHANGE_RENEWAL_PREF"
        notification.transaction = nil
        notification.renewal?.offerType = 3
        notification.renewal?.offerIdentifier = "code-2026"
        notification.renewal?.offerDiscountType = "PAY_UP_FRONT"
        let record = NotificationRecord(verified: try verified(notification), subscriptionKey: key, receivedAt: 0)
        #expect(record.offerType == 3 && record.offerIdentifier == "code-2026" && record.offerDiscountType == "PAY_UP_FRONT")
        #expect(record.productID == "app.symi.plus.monthly" && record.price == nil && record.autoRenewStatus == 1)
        #expect(record.subscription == NotificationRecord.subscriptionHash(originalTransactionID: "2000000123456789", key: key))
    }

    @Test func aTestNotificationKeepsItsTypeAndNothingElse() throws {
        let record = NotificationRecord(verified: try verified(.test()), subscriptionKey: key, receivedAt: 7)
        #expect(record.notificationType == "TEST" && record.environment == "Sandbox" && record.receivedAt == 7)
        #expect(record.productID == nil && record.subscription == nil && record.offerType == nil && record.autoRenewStatus == nil)
    }
}
