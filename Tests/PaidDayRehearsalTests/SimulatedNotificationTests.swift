import AppStoreNotifications
import AppStoreTestSupport
@testable import PaidDayRehearsal
import Testing

/// The notification a simulated event becomes verifies as Apple's would, and the receiver's record of it is the
/// truth's record: the same fields, the subscription as the receiver's keyed hash of the same id.
@Suite struct SimulatedNotificationTests {
    @Test func theVerifiedRecordIsTheTruthsRecord() throws {
        let ca = try AppStoreTestCA()
        let signer = AppStoreTestSigner(ca: ca)
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001, environments: [.production]))
        var truth = NotificationWeek.Truth(arms: [ArmTruth(product: "p.a", share: 1, conversion: 0.05)], installsPerDay: 10_000)
        truth.behaviour.refundRate = 0.2
        let week = NotificationWeek(truth: truth, start: 1_796_083_200_000, tag: "s", seed: 11)
        let key = Array(repeating: UInt8(7), count: 32)
        var kinds: Set<String> = []
        // Up to 80 of each kind, from the whole week.
        var perKind: [String: Int] = [:]
        let sample = week.notifications.filter { notification in
            let name = notification.typeAndSubtype.0 + "/" + (notification.typeAndSubtype.1 ?? "-")
            perKind[name, default: 0] += 1
            return perKind[name, default: 0] <= 80
        }
        for notification in sample {
            let verified = try verifier.verifyNotificationBody(try notification.testNotification().body(signer))
            let stored = NotificationRecord(verified: verified, subscriptionKey: key, receivedAt: 42)
            var expected = notification.record()
            expected.receivedAt = 42
            expected.subscription = NotificationRecord.subscriptionHash(originalTransactionID: notification.subscription, key: key)
            #expect(stored == expected, "\(notification.kind)")
            kinds.insert(notification.typeAndSubtype.0 + "/" + (notification.typeAndSubtype.1 ?? "-"))
        }
        #expect(kinds == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW/-", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                          "EXPIRED/VOLUNTARY", "REFUND/-"], "every kind checked: \(kinds)")
    }
}
