/// What the server keeps of one App Store Server Notification (version 2), and nothing more: the fields the outcomes
/// are counted from and the privacy policy lists (docs/appstore.md). Apple's identifiers of the buyer are not among
/// them: `originalTransactionId` is kept only as a keyed hash (`subscription`), `appAccountToken` never.
///
/// Times are milliseconds since 1970 (UTC), as Apple sends them.
public struct NotificationRecord: Sendable, Equatable, Hashable {
    /// Apple's `notificationUUID`: a notification is stored once under it (Apple sends it again until it gets a 200).
    public var notificationUUID: String
    /// `notificationType` (`SUBSCRIBED`, `DID_RENEW`, `TEST`, ...).
    public var notificationType: String
    /// `subtype` (`INITIAL_BUY`, `VOLUNTARY`, ...), when the type has one.
    public var subtype: String?
    /// The payload's `signedDate`.
    public var signedDate: Int64
    /// When this server stored it.
    public var receivedAt: Int64
    /// `Production`, `Sandbox` (the payload's `data.environment`).
    public var environment: String
    /// The transaction's `productId`.
    public var productID: String?
    /// The transaction's `offerType` (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int?
    /// The transaction's `offerIdentifier`.
    public var offerIdentifier: String?
    /// The transaction's `offerDiscountType` (`FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`).
    public var offerDiscountType: String?
    /// The transaction's `price`, in milliunits of `currency`.
    public var price: Int64?
    /// The transaction's `currency` (ISO 4217).
    public var currency: String?
    /// The transaction's `storefront` (ISO 3166-1 alpha-3).
    public var storefront: String?
    /// The transaction's `transactionReason` (`PURCHASE`, `RENEWAL`).
    public var transactionReason: String?
    /// The transaction's `expiresDate`.
    public var expiresDate: Int64?
    /// The renewal info's `expirationIntent`.
    public var expirationIntent: Int?
    /// The transaction's `revocationReason`.
    public var revocationReason: Int?
    /// The renewal info's `priceIncreaseStatus`.
    public var priceIncreaseStatus: Int?
    /// The renewal info's `autoRenewStatus` (0 off, 1 on).
    public var autoRenewStatus: Int?
    /// The renewal info's `isInBillingRetryPeriod`.
    public var isInBillingRetryPeriod: Bool?
    /// The renewal info's `gracePeriodExpiresDate`.
    public var gracePeriodExpiresDate: Int64?
    /// HMAC-SHA256 (the server's key) of the transaction's `originalTransactionId`, lowercase hex: one subscription's
    /// notifications share it, and Apple's identifier cannot be read back from it.
    public var subscription: String?

    /// A record with every optional field nil.
    public init(notificationUUID: String, notificationType: String, subtype: String? = nil, signedDate: Int64,
                receivedAt: Int64, environment: String) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.receivedAt = receivedAt
        self.environment = environment
    }
}
