import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// The verifier against notifications signed by a throw-away chain shaped like Apple's: the good ones decode, each
/// tampered form is refused with its own reason code.
@Suite struct SignedPayloadVerifierTests {
    let ca: AppStoreTestCA
    let signer: AppStoreTestSigner
    let verifier: SignedPayloadVerifier

    init() throws {
        ca = try AppStoreTestCA()
        signer = AppStoreTestSigner(ca: ca)
        verifier = try Self.verifier(roots: [ca.rootDER])
    }

    static func verifier(roots: [[UInt8]], environments: Set<AppStoreEnvironment> = [.production, .sandbox],
                         appAppleID: Int64? = 6_450_000_001) throws -> SignedPayloadVerifier {
        try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: roots, bundleID: "app.symi.journal", appAppleID: appAppleID, environments: environments))
    }

    /// The reason `verifier` refuses `body` with (nil when it accepts it).
    static func refusal(_ verifier: SignedPayloadVerifier, _ body: [UInt8]) -> AppStoreVerificationError? {
        do {
            _ = try verifier.verifyNotificationBody(body)
            return nil
        } catch {
            return error
        }
    }

    func refusal(_ notification: AppStoreTestNotification, signing: AppStoreTestNotification.Signing = .init(),
                 signer: AppStoreTestSigner? = nil) throws -> AppStoreVerificationError? {
        Self.refusal(verifier, try notification.body(signer ?? self.signer, signing: signing))
    }

    @Test func aGoodNotificationVerifiesAndDecodesEveryField() throws {
        var notification = AppStoreTestNotification()
        notification.transaction?.offerType = 1
        notification.transaction?.offerIdentifier = "intro-week"
        notification.transaction?.offerDiscountType = "FREE_TRIAL"
        notification.transaction?.revocationReason = 0
        notification.transaction?.revocationDate = 1_797_000_000_000
        notification.renewal?.expirationIntent = 2
        notification.renewal?.priceIncreaseStatus = 1
        notification.renewal?.isInBillingRetryPeriod = true
        notification.renewal?.gracePeriodExpiresDate = 1_799_000_000_000
        notification.renewal?.offerType = 2
        notification.renewal?.offerIdentifier = "winback"
        let verified = try verifier.verifyNotificationBody(try notification.body(signer))
        #expect(verified.notificationType == "SUBSCRIBED" && verified.subtype == "INITIAL_BUY")
        #expect(verified.notificationUUID == notification.notificationUUID)
        #expect(verified.signedDate == notification.signedDate && verified.version == "2.0")
        #expect(verified.environment == .production && verified.bundleID == "app.symi.journal")
        #expect(verified.appAppleID == 6_450_000_001 && verified.status == 1)
        let transaction = try #require(verified.transaction)
        #expect(transaction.originalTransactionID == "2000000123456789" && transaction.transactionID == "2000000123456789")
        #expect(transaction.productID == "app.symi.plus.monthly" && transaction.offerType == 1)
        #expect(transaction.offerIdentifier == "intro-week" && transaction.offerDiscountType == "FREE_TRIAL")
        #expect(transaction.price == 4990 && transaction.currency == "EUR" && transaction.storefront == "DEU")
        #expect(transaction.transactionReason == "PURCHASE" && transaction.purchaseDate == 1_796_000_000_000)
        #expect(transaction.expiresDate == 1_798_592_000_000 && transaction.revocationReason == 0)
        #expect(transaction.revocationDate == 1_797_000_000_000 && transaction.type == "Auto-Renewable Subscription")
        #expect(transaction.inAppOwnershipType == "PURCHASED" && transaction.environment == "Production")
        #expect(transaction.bundleID == "app.symi.journal" && transaction.signedDate == notification.signedDate)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.quantity == 1 && transaction.storefrontID == "143443")
        let renewal = try #require(verified.renewal)
        #expect(renewal.autoRenewStatus == 1 && renewal.expirationIntent == 2 && renewal.priceIncreaseStatus == 1)
        #expect(renewal.isInBillingRetryPeriod == true && renewal.gracePeriodExpiresDate == 1_799_000_000_000)
        #expect(renewal.autoRenewProductID == "app.symi.plus.monthly" && renewal.productID == "app.symi.plus.monthly")
        #expect(renewal.originalTransactionID == "2000000123456789" && renewal.offerType == 2)
        #expect(renewal.offerIdentifier == "winback" && renewal.renewalPrice == 4990 && renewal.currency == "EUR")
        #expect(renewal.environment == "Production" && renewal.signedDate == notification.signedDate)
    }

    @Test func aTestNotificationVerifiesWithoutTransaction() throws {
        let verified = try verifier.verifyNotificationBody(try AppStoreTestNotification.test().body(signer))
        #expect(verified.notificationType == "TEST" && verified.subtype == nil)
        #expect(verified.environment == .sandbox && verified.transaction == nil && verified.renewal == nil)
    }

    @Test func membersAppleAddsLaterAreIgnored() throws {
        var payload: [String: Any] = ["notificationType": "TEST", "notificationUUID": "u-1", "signedDate": 1_796_000_000_000,
                                      "version": "2.0", "somethingNew": ["nested": [1, 2]],
                                      "data": ["bundleId": "app.symi.journal", "environment": "Sandbox", "newField": true]]
        payload["anotherOne"] = "x"
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": try signer.sign(payload), "extra": 1])
        let verified = try verifier.verifyNotificationBody([UInt8](body))
        #expect(verified.notificationUUID == "u-1")
    }

    @Test(arguments: [
        (AppStoreTestSigner.Tampering.flippedSignatureByte, AppStoreVerificationError.Reason.invalidSignature),
        (.chainOutOfOrder, .invalidChain),
        (.algorithmNone, .unsupportedAlgorithm),
        (.algorithmHS256, .unsupportedAlgorithm),
        (.payloadEditedAfterSigning, .invalidSignature),
    ])
    func aTamperedPayloadIsRefused(tampering: AppStoreTestSigner.Tampering, reason: AppStoreVerificationError.Reason) throws {
        var signing = AppStoreTestNotification.Signing()
        signing.payload = tampering
        #expect(try refusal(AppStoreTestNotification(), signing: signing)?.reason == reason)
        #expect(try refusal(AppStoreTestNotification(), signing: .init()) == nil)
    }

    @Test(arguments: [
        (AppStoreTestSigner.Tampering.flippedSignatureByte, AppStoreVerificationError.Reason.invalidSignature),
        (.chainOutOfOrder, .invalidChain),
        (.algorithmNone, .unsupportedAlgorithm),
        (.payloadEditedAfterSigning, .invalidSignature),
    ])
    func aTamperedNestedObjectIsRefused(tampering: AppStoreTestSigner.Tampering, reason: AppStoreVerificationError.Reason) throws {
        var transaction = AppStoreTestNotification.Signing()
        transaction.transaction = tampering
        let transactionError = try #require(try refusal(AppStoreTestNotification(), signing: transaction))
        #expect(transactionError.reason == reason && transactionError.detail.hasPrefix("data.signedTransactionInfo: "))
        var renewal = AppStoreTestNotification.Signing()
        renewal.renewal = tampering
        let renewalError = try #require(try refusal(AppStoreTestNotification(), signing: renewal))
        #expect(renewalError.reason == reason && renewalError.detail.hasPrefix("data.signedRenewalInfo: "))
    }

    @Test(arguments: [[1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0], [0, 1], [0], [], [0, 1, 2, 2]])
    func aChainInAnyOtherOrderOrLengthIsRefused(order: [Int]) throws {
        var signing = AppStoreTestNotification.Signing()
        signing.payload = .x5cOrder(order)
        #expect(try refusal(AppStoreTestNotification(), signing: signing)?.reason == .invalidChain)
    }

    /// Only a configured root is trusted: the root a notification sends is not even read (as Apple's library).
    @Test(arguments: [[UInt8](), Array("not a certificate".utf8)])
    func theRootAsSentIsNotRead(root: [UInt8]) throws {
        var signing = AppStoreTestNotification.Signing()
        signing.payload = .rootAsSent(root)
        #expect(try refusal(AppStoreTestNotification(), signing: signing) == nil)
        signing.payload = .rootAsSent(try AppStoreTestCA().rootDER)
        #expect(try refusal(AppStoreTestNotification(), signing: signing) == nil)
    }

    @Test func aChainToAnotherRootIsRefused() throws {
        let other = AppStoreTestSigner(ca: try AppStoreTestCA())
        #expect(try refusal(AppStoreTestNotification(), signer: other)?.reason == .invalidChain)
        // The nested objects too.
        var signing = AppStoreTestNotification.Signing()
        signing.renewalSigner = other
        let error = try refusal(AppStoreTestNotification(), signing: signing)
        #expect(error?.reason == .invalidChain && error?.detail.hasPrefix("data.signedRenewalInfo: ") == true)
        // Trusting both roots accepts both.
        let both = try Self.verifier(roots: [ca.rootDER, other.ca.rootDER])
        #expect(Self.refusal(both, try AppStoreTestNotification().body(other)) == nil)
        #expect(Self.refusal(both, try AppStoreTestNotification().body(signer)) == nil)
    }

    @Test func aMissingMarkerIsRefused() throws {
        var noLeafMarker = AppStoreTestCA.Options()
        noLeafMarker.leafMarker = false
        var noIntermediateMarker = AppStoreTestCA.Options()
        noIntermediateMarker.intermediateMarker = false
        for options in [noLeafMarker, noIntermediateMarker] {
            let tampered = try AppStoreTestCA(options)
            let verifier = try Self.verifier(roots: [tampered.rootDER])
            let error = Self.refusal(verifier, try AppStoreTestNotification().body(AppStoreTestSigner(ca: tampered)))
            #expect(error?.reason == .missingMarker)
            #expect(error?.detail.contains(options.leafMarker ? "1.2.840.113635.100.6.2.1" : "1.2.840.113635.100.6.11.1") == true)
        }
    }

    /// Each certificate in turn valid 2026-11-01 to 2026-12-01 (seconds): signed inside, before and after.
    @Test(arguments: ["root", "intermediate", "leaf"])
    func aCertificateMustBeValidAtSignedDate(which: String) throws {
        var options = AppStoreTestCA.Options()
        let window = AppStoreTestCA.Validity(notBefore: 1_793_491_200, notAfter: 1_796_083_200)
        switch which {
        case "root": options.rootValidity = window
        case "intermediate": options.intermediateValidity = window
        default: options.leafValidity = window
        }
        let narrow = try AppStoreTestCA(options)
        let verifier = try Self.verifier(roots: [narrow.rootDER])
        let signer = AppStoreTestSigner(ca: narrow)
        var notification = AppStoreTestNotification()
        // Inside (today is after the window: the date that counts is signedDate, as in Apple's library).
        notification.signedDate = 1_795_000_000_000
        #expect(Self.refusal(verifier, try notification.body(signer)) == nil)
        // The bounds as Apple's library reads them: signedDate in whole seconds, notBefore through notAfter inclusive
        // (RFC 5280 §4.1.2.5).
        for inside: Int64 in [1_793_491_200_000, 1_796_083_200_000, 1_796_083_200_999] {
            notification.signedDate = inside
            #expect(Self.refusal(verifier, try notification.body(signer)) == nil, "\(which) at \(inside)")
        }
        for outside: Int64 in [1_793_491_199_999, 1_796_083_201_000, 1_800_000_000_000, 1_000_000_000_000] {
            notification.signedDate = outside
            let error = Self.refusal(verifier, try notification.body(signer))
            #expect(error?.reason == .certificateNotValidAtSignedDate, "\(which) at \(outside): \(String(describing: error))")
        }
        // A nested object is checked at its own signedDate.
        notification.signedDate = 1_795_000_000_000
        notification.transaction?.signedDate = 1_800_000_000_000
        let nested = Self.refusal(verifier, try notification.body(signer))
        #expect(nested?.reason == .certificateNotValidAtSignedDate && nested?.detail.hasPrefix("data.signedTransactionInfo") == true)
    }

    @Test func theBundleMustBeTheConfiguredOne() throws {
        var notification = AppStoreTestNotification()
        notification.bundleID = "com.example.other"
        #expect(try refusal(notification)?.reason == .wrongBundleID)
        notification.bundleID = nil
        #expect(try refusal(notification)?.reason == .wrongBundleID)
        // A transaction of another app inside this app's notification.
        notification = AppStoreTestNotification()
        notification.transaction?.bundleID = "com.example.other"
        let error = try refusal(notification)
        #expect(error?.reason == .wrongBundleID && error?.detail.hasPrefix("data.signedTransactionInfo") == true)
    }

    @Test func theAppAppleIDIsCheckedInProductionOnly() throws {
        var notification = AppStoreTestNotification()
        notification.appAppleID = 42
        #expect(try refusal(notification)?.reason == .wrongAppAppleID)
        notification.appAppleID = nil
        #expect(try refusal(notification)?.reason == .wrongAppAppleID)
        // Sandbox: Apple's library does not compare it (sandbox notifications may carry none).
        notification.environment = "Sandbox"
        #expect(try refusal(notification) == nil)
        notification.appAppleID = 42
        #expect(try refusal(notification) == nil)
    }

    @Test func theEnvironmentMustBeAConfiguredOne() throws {
        let productionOnly = try Self.verifier(roots: [ca.rootDER], environments: [.production])
        var notification = AppStoreTestNotification()
        #expect(Self.refusal(productionOnly, try notification.body(signer)) == nil)
        notification.environment = "Sandbox"
        #expect(Self.refusal(productionOnly, try notification.body(signer))?.reason == .wrongEnvironment)
        let sandboxOnly = try Self.verifier(roots: [ca.rootDER], environments: [.sandbox], appAppleID: nil)
        #expect(Self.refusal(sandboxOnly, try notification.body(signer)) == nil)
        for environment in ["Production", "Xcode", "Staging", "sandbox"] {
            notification.environment = environment
            #expect(Self.refusal(sandboxOnly, try notification.body(signer))?.reason == .wrongEnvironment, "\(environment)")
        }
        // A nested object of another environment.
        notification = AppStoreTestNotification()
        notification.renewal?.environment = "Sandbox"
        #expect(Self.refusal(productionOnly, try notification.body(signer))?.reason == .wrongEnvironment)
        // ... also when both environments are accepted: Apple's verifier, configured for the notification's
        // environment, refuses a Sandbox transaction inside a Production notification.
        let both = try Self.verifier(roots: [ca.rootDER])
        for nested in ["transaction", "renewal"] {
            notification = AppStoreTestNotification()
            if nested == "transaction" { notification.transaction?.environment = "Sandbox" } else { notification.renewal?.environment = "Sandbox" }
            let refusal = Self.refusal(both, try notification.body(signer))
            #expect(refusal?.reason == .wrongEnvironment && refusal?.detail.contains("the notification's is") == true, "\(nested)")
        }
    }

    @Test func productionNeedsAnAppAppleID() throws {
        #expect(throws: AppStoreVerificationError.self) {
            try Self.verifier(roots: [ca.rootDER], environments: [.production], appAppleID: nil)
        }
        #expect(throws: AppStoreVerificationError.self) { try Self.verifier(roots: []) }
        let error = try #require(throws: AppStoreVerificationError.self) { try Self.verifier(roots: [[0x30, 0x03, 1, 2, 3]]) }
        #expect(error.reason == .invalidRootCertificate)
    }

    @Test(arguments: ["", "null", "[]", "{}", "{\"signedPayload\": 1}", "{\"signedPayload\": \"a.b.c\"", "not json"])
    func aBodyThatIsNotTheJSONAppleSendsIsRefused(body: String) {
        #expect(Self.refusal(verifier, Array(body.utf8))?.reason == .invalidJSON)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "!!.??.**", "eyJhbGciOiJFUzI1NiJ9.e30", "e30=.e30.AA", "bm90IGpzb24.e30.AA"])
    func somethingThatIsNotAJWSIsRefused(signedPayload: String) {
        let error = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyNotification(signedPayload: signedPayload) }
        #expect(error?.reason == .invalidJWS, "\(signedPayload): \(String(describing: error))")
    }

    @Test func aSignedPayloadThatIsNotAppleJSONIsRefusedWithThePath() throws {
        let missing = try signer.sign(["notificationType": "TEST", "signedDate": 1_796_000_000_000])
        let error = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyNotification(signedPayload: missing) }
        #expect(error?.reason == .invalidPayload && error?.detail.contains("notificationUUID") == true)
        var notification = AppStoreTestNotification()
        let transaction = try #require(notification.transactionObject())
        var badPrice = transaction
        badPrice["price"] = "4.99"
        notification.transaction = nil
        let outer = try signer.sign(["notificationType": "SUBSCRIBED", "notificationUUID": "u", "signedDate": 1_796_000_000_000,
                                     "data": ["bundleId": "app.symi.journal", "appAppleId": 6_450_000_001,
                                              "environment": "Production", "signedTransactionInfo": try signer.sign(badPrice)]])
        let nested = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyNotification(signedPayload: outer) }
        #expect(nested?.reason == .invalidPayload && nested?.detail == "data.signedTransactionInfo: price: expected Int64", "\(String(describing: nested))")
        let noDate = try signer.sign(["notificationType": "TEST", "notificationUUID": "u"])
        #expect(throws: AppStoreVerificationError.self) { try verifier.verifyNotification(signedPayload: noDate) }
    }
}
