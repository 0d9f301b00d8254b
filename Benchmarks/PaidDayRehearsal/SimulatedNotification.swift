import AppStoreNotifications
import AppStoreTestSupport

/// One App Store Server Notification of a ``NotificationWeek``: what happened to which subscription when. It becomes
/// both the notification Apple would send (``testNotification(environment:)``, to be signed and posted to the real
/// receiver) and the record the truth is analysed from (``record(environment:)``), from the same fields.
public struct SimulatedNotification: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// `SUBSCRIBED` `INITIAL_BUY`, with the free trial or paid.
        case started(freeTrial: Bool)
        /// `DID_RENEW`: the first paid period after the free trial (an intro conversion).
        case renewed
        /// `DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_DISABLED`.
        case autoRenewOff
        /// `EXPIRED` `VOLUNTARY` (auto-renew was off at the period's end).
        case expired
        /// `REFUND` of the period paid at `paidAt`.
        case refunded(paidAt: Int64)
    }

    /// Unique across every simulation of one seed (the receiver stores a notification once by it).
    public var uuid: String
    /// Apple's `originalTransactionId`: the subscription (the receiver keeps only its keyed hash).
    public var subscription: String
    /// Unique per transaction.
    public var transactionID: String
    /// The product.
    public var product: String
    /// The list price (milliunits) and currency.
    public var listPrice: Int64
    /// The list price's currency.
    public var currency: String
    /// The payload's `signedDate` (ms since 1970, UTC).
    public var signedDate: Int64
    /// When the subscription started (its `purchaseDate` in the start's notification).
    public var startedAt: Int64
    /// The current period's end (`expiresDate`).
    public var expiresAt: Int64
    /// What happened.
    public var kind: Kind

    /// `notificationType` and `subtype`.
    public var typeAndSubtype: (String, String?) {
        switch kind {
        case .started: ("SUBSCRIBED", "INITIAL_BUY")
        case .renewed: ("DID_RENEW", nil)
        case .autoRenewOff: ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
        case .expired: ("EXPIRED", "VOLUNTARY")
        case .refunded: ("REFUND", nil)
        }
    }

    /// The free trial's start carries the introductory offer; every later transaction is a paid period.
    var isFreeTrialStart: Bool { if case .started(freeTrial: true) = kind { return true } else { return false } }

    /// Auto-renew is off from the turn-off on (the expiry follows it).
    var autoRenewStatus: Int {
        switch kind {
        case .autoRenewOff, .expired: 0
        default: 1
        }
    }

    /// The notification as Apple would send it (sign it with an `AppStoreTestSigner` the server trusts).
    package func testNotification(environment: String = "Production") -> AppStoreTestNotification {
        var notification = AppStoreTestNotification()
        (notification.notificationType, notification.subtype) = typeAndSubtype
        notification.notificationUUID = uuid
        notification.signedDate = signedDate
        notification.environment = environment
        var transaction = AppStoreTestNotification.Transaction()
        transaction.originalTransactionID = subscription
        transaction.transactionID = transactionID
        transaction.productID = product
        transaction.appAccountToken = nil
        transaction.currency = currency
        transaction.expiresDate = expiresAt
        if isFreeTrialStart {
            transaction.offerType = 1
            transaction.offerDiscountType = "FREE_TRIAL"
            transaction.price = 0
            transaction.purchaseDate = startedAt
        } else {
            transaction.price = listPrice
            transaction.purchaseDate = kind == .started(freeTrial: false) ? startedAt : nil
        }
        switch kind {
        case .renewed:
            transaction.transactionReason = "RENEWAL"
            transaction.purchaseDate = signedDate
        case .refunded(let paidAt):
            transaction.purchaseDate = paidAt
            transaction.revocationDate = signedDate
            transaction.revocationReason = 0
        default:
            break
        }
        transaction.purchaseDate = transaction.purchaseDate ?? startedAt
        notification.transaction = transaction
        var renewal = AppStoreTestNotification.Renewal()
        renewal.autoRenewStatus = autoRenewStatus
        renewal.productID = product
        renewal.autoRenewProductID = product
        renewal.originalTransactionID = subscription
        renewal.renewalPrice = listPrice
        renewal.currency = currency
        if kind == .expired { renewal.expirationIntent = 1 }
        notification.renewal = renewal
        return notification
    }

    /// The record the receiver would keep, with `subscription` as the subscription's key (the receiver's is a keyed
    /// hash of it: a different string, the same grouping, so every count is the same).
    public func record(environment: String = "Production") -> NotificationRecord {
        let notification = testNotification(environment: environment)
        let (type, subtype) = typeAndSubtype
        var record = NotificationRecord(notificationUUID: uuid, notificationType: type, subtype: subtype,
                                        signedDate: signedDate, receivedAt: signedDate, environment: environment)
        let transaction = notification.transaction
        record.productID = product
        record.offerType = transaction?.offerType
        record.offerDiscountType = transaction?.offerDiscountType
        record.price = transaction?.price
        record.currency = currency
        record.storefront = transaction?.storefront
        record.transactionReason = transaction?.transactionReason
        record.expiresDate = expiresAt
        record.revocationReason = transaction?.revocationReason
        record.autoRenewStatus = autoRenewStatus
        record.isInBillingRetryPeriod = false
        record.expirationIntent = notification.renewal?.expirationIntent
        record.subscription = subscription
        return record
    }
}
