import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// Where the app and environment of a notification are read: `data`, else `summary`, `externalPurchaseToken`,
/// `appData`, in the order of Apple's `SignedDataVerifier`.
@Suite struct VerifiedNotificationTests {
    let signer: AppStoreTestSigner
    let verifier: SignedPayloadVerifier

    init() throws {
        let ca = try AppStoreTestCA()
        signer = AppStoreTestSigner(ca: ca)
        verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001,
            environments: [.production, .sandbox]))
    }

    func verify(_ members: [String: Any]) throws -> VerifiedNotification {
        var payload: [String: Any] = ["notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY",
                                      "notificationUUID": "n-1", "signedDate": 1_796_000_000_000, "version": "2.0"]
        payload.merge(members) { _, new in new }
        return try verifier.verifyNotification(signedPayload: try signer.sign(payload))
    }

    @Test func aSummaryNamesTheAppOfARenewalExtension() throws {
        let verified = try verify(["summary": ["bundleId": "app.symi.journal", "appAppleId": 6_450_000_001,
                                               "environment": "Production", "productId": "p", "succeededCount": 3]])
        #expect(verified.notificationType == "RENEWAL_EXTENSION" && verified.environment == .production)
        #expect(verified.transaction == nil && verified.appAppleID == 6_450_000_001)
        let error = #expect(throws: AppStoreVerificationError.self) {
            try verify(["summary": ["bundleId": "app.symi.journal", "appAppleId": 1, "environment": "Production"]])
        }
        #expect(error?.reason == .wrongAppAppleID)
    }

    @Test func anExternalPurchaseTokenTakesItsEnvironmentFromItsIdentifier() throws {
        let sandbox = try verify(["externalPurchaseToken": ["bundleId": "app.symi.journal", "externalPurchaseId": "SANDBOX_x"]])
        #expect(sandbox.environment == .sandbox)
        let production = try verify(["externalPurchaseToken": ["bundleId": "app.symi.journal", "appAppleId": 6_450_000_001,
                                                               "externalPurchaseId": "x"]])
        #expect(production.environment == .production)
    }

    @Test func dataComesFirst() throws {
        let verified = try verify(["data": ["bundleId": "app.symi.journal", "environment": "Sandbox"],
                                   "appData": ["bundleId": "other", "environment": "Production"]])
        #expect(verified.environment == .sandbox)
        let appData = try verify(["appData": ["bundleId": "app.symi.journal", "environment": "Sandbox"]])
        #expect(appData.environment == .sandbox)
    }

    @Test func aNotificationThatNamesNoAppIsRefused() {
        let error = #expect(throws: AppStoreVerificationError.self) { try verify([:]) }
        #expect(error?.reason == .wrongBundleID)
    }
}
