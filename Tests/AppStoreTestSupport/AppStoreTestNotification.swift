import Foundation

/// A typical App Store Server Notification V2, as Apple would send it, to be signed by an `AppStoreTestSigner`:
/// the payload, `data` with the app and environment, and the nested transaction and renewal info (each omitted when
/// nil, as in a TEST notification). Every field can be changed; `extraPayload` and friends add members Apple may add.
package struct AppStoreTestNotification: Sendable {
    /// The transaction's fields (`JWSTransactionDecodedPayload`); nil ones are left out.
    package struct Transaction: Sendable {
        /// Apple's `originalTransactionId`.
        package var originalTransactionID: String? = "2000000123456789"
        /// Apple's `transactionId`.
        package var transactionID: String? = "2000000123456789"
        /// Apple's `productId`.
        package var productID: String? = "app.symi.plus.monthly"
        /// Apple's `offerType`.
        package var offerType: Int?
        /// Apple's `offerIdentifier`.
        package var offerIdentifier: String?
        /// Apple's `offerDiscountType`.
        package var offerDiscountType: String?
        /// Apple's `price`.
        package var price: Int64? = 4990
        /// Apple's `currency`.
        package var currency: String? = "EUR"
        /// Apple's `storefront`.
        package var storefront: String? = "DEU"
        /// Apple's `transactionReason`.
        package var transactionReason: String? = "PURCHASE"
        /// Apple's `purchaseDate`.
        package var purchaseDate: Int64? = 1_796_000_000_000
        /// Apple's `expiresDate`.
        package var expiresDate: Int64? = 1_798_592_000_000
        /// Apple's `revocationReason`.
        package var revocationReason: Int?
        /// Apple's `revocationDate`.
        package var revocationDate: Int64?
        /// Apple's `type`.
        package var type: String? = "Auto-Renewable Subscription"
        /// Apple's `inAppOwnershipType`.
        package var inAppOwnershipType: String? = "PURCHASED"
        /// Apple's `appAccountToken`.
        package var appAccountToken: String? = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        /// The transaction's `signedDate` (nil: the notification's).
        package var signedDate: Int64?
        /// The transaction's `environment` (nil: the notification's).
        package var environment: String?
        /// The transaction's `bundleId` (nil: the notification's).
        package var bundleID: String?
        /// A transaction with the defaults above.
        package init() {}
    }

    /// The renewal info's fields (`JWSRenewalInfoDecodedPayload`); nil ones are left out.
    package struct Renewal: Sendable {
        /// Apple's `autoRenewStatus`.
        package var autoRenewStatus: Int? = 1
        /// Apple's `expirationIntent`.
        package var expirationIntent: Int?
        /// Apple's `priceIncreaseStatus`.
        package var priceIncreaseStatus: Int?
        /// Apple's `isInBillingRetryPeriod`.
        package var isInBillingRetryPeriod: Bool? = false
        /// Apple's `gracePeriodExpiresDate`.
        package var gracePeriodExpiresDate: Int64?
        /// Apple's `autoRenewProductId`.
        package var autoRenewProductID: String? = "app.symi.plus.monthly"
        /// Apple's `productId`.
        package var productID: String? = "app.symi.plus.monthly"
        /// Apple's `originalTransactionId`.
        package var originalTransactionID: String? = "2000000123456789"
        /// Apple's `offerType`.
        package var offerType: Int?
        /// Apple's `offerIdentifier`.
        package var offerIdentifier: String?
        /// Apple's `offerDiscountType`.
        package var offerDiscountType: String?
        /// Apple's `renewalPrice`.
        package var renewalPrice: Int64? = 4990
        /// Apple's `currency`.
        package var currency: String? = "EUR"
        /// The renewal info's `signedDate` (nil: the notification's).
        package var signedDate: Int64?
        /// The renewal info's `environment` (nil: the notification's).
        package var environment: String?
        /// Renewal info with the defaults above.
        package init() {}
    }

    /// `notificationType`.
    package var notificationType = "SUBSCRIBED"
    /// `subtype` (nil: left out).
    package var subtype: String? = "INITIAL_BUY"
    /// `notificationUUID` (a new UUID for each).
    package var notificationUUID = UUID().uuidString.lowercased()
    /// `signedDate` of the payload (and, unless set, of the nested objects).
    package var signedDate: Int64 = 1_796_000_000_000
    /// `version`.
    package var version = "2.0"
    /// `data.environment` (and, unless set, of the nested objects).
    package var environment = "Production"
    /// Apple's `bundleId`.
    package var bundleID: String? = "app.symi.journal"
    /// Apple's `appAppleId`.
    package var appAppleID: Int64? = 6_450_000_001
    /// `data.status`.
    package var status: Int? = 1
    /// The nested transaction (nil: none, as in a TEST notification).
    package var transaction: Transaction? = Transaction()
    /// The nested renewal info (nil: none).
    package var renewal: Renewal? = Renewal()

    /// A SUBSCRIBED INITIAL_BUY in Production with a transaction and renewal info.
    package init() {}

    /// App Store Connect's TEST notification: `data` names the app and environment, nothing else.
    package static func test(environment: String = "Sandbox") -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        notification.notificationType = "TEST"
        notification.subtype = nil
        notification.environment = environment
        notification.status = nil
        notification.transaction = nil
        notification.renewal = nil
        return notification
    }

    /// The transaction's JSON object.
    package func transactionObject() -> [String: Any]? {
        guard let t = transaction else { return nil }
        let members: [String: Any?] = [
            "originalTransactionId": t.originalTransactionID, "transactionId": t.transactionID, "productId": t.productID,
            "offerType": t.offerType, "offerIdentifier": t.offerIdentifier, "offerDiscountType": t.offerDiscountType,
            "price": t.price, "currency": t.currency, "storefront": t.storefront, "storefrontId": "143443",
            "transactionReason": t.transactionReason, "purchaseDate": t.purchaseDate,
            "originalPurchaseDate": t.purchaseDate, "expiresDate": t.expiresDate, "revocationReason": t.revocationReason,
            "revocationDate": t.revocationDate, "type": t.type, "inAppOwnershipType": t.inAppOwnershipType,
            "appAccountToken": t.appAccountToken, "signedDate": t.signedDate ?? signedDate,
            "environment": t.environment ?? environment, "bundleId": t.bundleID ?? bundleID,
            "quantity": 1, "webOrderLineItemId": "2000000098765432", "subscriptionGroupIdentifier": "21000001",
        ]
        return members.compactMapValues { $0 }
    }

    /// The renewal info's JSON object.
    package func renewalObject() -> [String: Any]? {
        guard let r = renewal else { return nil }
        let members: [String: Any?] = [
            "autoRenewStatus": r.autoRenewStatus, "expirationIntent": r.expirationIntent,
            "priceIncreaseStatus": r.priceIncreaseStatus, "isInBillingRetryPeriod": r.isInBillingRetryPeriod,
            "gracePeriodExpiresDate": r.gracePeriodExpiresDate, "autoRenewProductId": r.autoRenewProductID,
            "productId": r.productID, "originalTransactionId": r.originalTransactionID, "offerType": r.offerType,
            "offerIdentifier": r.offerIdentifier, "offerDiscountType": r.offerDiscountType,
            "renewalPrice": r.renewalPrice, "currency": r.currency, "signedDate": r.signedDate ?? signedDate,
            "environment": r.environment ?? environment, "recentSubscriptionStartDate": transaction?.purchaseDate,
        ]
        return members.compactMapValues { $0 }
    }

    /// How each of the three JWS is signed.
    package struct Signing: Sendable {
        /// How the payload is signed.
        package var payload: AppStoreTestSigner.Tampering = .none
        /// How the transaction is signed.
        package var transaction: AppStoreTestSigner.Tampering = .none
        /// How the renewal info is signed.
        package var renewal: AppStoreTestSigner.Tampering = .none
        /// The transaction's signer (nil: the payload's).
        package var transactionSigner: AppStoreTestSigner?
        /// The renewal info's signer (nil: the payload's).
        package var renewalSigner: AppStoreTestSigner?
        /// Every JWS signed properly by the payload's signer.
        package init() {}
    }

    /// The `signedPayload`: the nested objects signed first, then the payload around them.
    package func signedPayload(_ signer: AppStoreTestSigner, signing: Signing = Signing()) throws -> String {
        var data: [String: Any?] = ["bundleId": bundleID, "appAppleId": appAppleID, "environment": environment,
                                    "bundleVersion": "1.4.0", "status": status]
        if let object = transactionObject() {
            data["signedTransactionInfo"] = try (signing.transactionSigner ?? signer).sign(object, tampering: signing.transaction)
        }
        if let object = renewalObject() {
            data["signedRenewalInfo"] = try (signing.renewalSigner ?? signer).sign(object, tampering: signing.renewal)
        }
        let payload: [String: Any?] = ["notificationType": notificationType, "subtype": subtype,
                                       "notificationUUID": notificationUUID, "signedDate": signedDate,
                                       "version": version, "data": data.compactMapValues { $0 }]
        return try signer.sign(payload.compactMapValues { $0 }, tampering: signing.payload)
    }

    /// The POST body Apple sends: `{"signedPayload": "..."}`.
    package func body(_ signer: AppStoreTestSigner, signing: Signing = Signing()) throws -> [UInt8] {
        // A JWS is base64url and dots: nothing to escape in a JSON string.
        Array(#"{"signedPayload":""#.utf8) + Array(try signedPayload(signer, signing: signing).utf8) + Array(#""}"#.utf8)
    }
}
