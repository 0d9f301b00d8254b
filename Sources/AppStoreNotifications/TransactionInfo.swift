/// A verified `signedTransactionInfo`: Apple's `JWSTransactionDecodedPayload`. Every field is optional as in
/// Apple's documentation and libraries; fields Apple adds later are ignored. Times are milliseconds since 1970.
///
/// `originalTransactionID` and `appAccountToken` identify the buyer: `NotificationRecord` keeps the first only as a
/// keyed hash and the second never.
public struct TransactionInfo: Sendable, Equatable, Decodable {
    /// `originalTransactionId`: the subscription's first transaction, the same across renewals.
    public var originalTransactionID: String?
    /// `transactionId`.
    public var transactionID: String?
    /// `webOrderLineItemId`.
    public var webOrderLineItemID: String?
    /// `bundleId`.
    public var bundleID: String?
    /// `productId`.
    public var productID: String?
    /// `subscriptionGroupIdentifier`.
    public var subscriptionGroupIdentifier: String?
    /// `purchaseDate`.
    public var purchaseDate: Int64?
    /// `originalPurchaseDate`.
    public var originalPurchaseDate: Int64?
    /// `expiresDate` (subscriptions).
    public var expiresDate: Int64?
    /// `quantity`.
    public var quantity: Int?
    /// `type` (`Auto-Renewable Subscription`, `Non-Consumable`, ...).
    public var type: String?
    /// `appAccountToken`: the UUID the app attached to the purchase.
    public var appAccountToken: String?
    /// `inAppOwnershipType` (`PURCHASED`, `FAMILY_SHARED`).
    public var inAppOwnershipType: String?
    /// `signedDate`: when Apple signed it; the date its certificates are checked at.
    public var signedDate: Int64?
    /// `revocationReason` (0 other, 1 an issue in the app).
    public var revocationReason: Int?
    /// `revocationDate`.
    public var revocationDate: Int64?
    /// `isUpgraded`.
    public var isUpgraded: Bool?
    /// `offerType` (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int?
    /// `offerIdentifier`.
    public var offerIdentifier: String?
    /// `offerDiscountType` (`FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`).
    public var offerDiscountType: String?
    /// `offerPeriod` (ISO 8601 duration).
    public var offerPeriod: String?
    /// `environment` (`Production`, `Sandbox`, ...), as sent.
    public var environment: String?
    /// `storefront` (ISO 3166-1 alpha-3).
    public var storefront: String?
    /// `storefrontId`.
    public var storefrontID: String?
    /// `transactionReason` (`PURCHASE`, `RENEWAL`).
    public var transactionReason: String?
    /// `price`, in milliunits of `currency`.
    public var price: Int64?
    /// `currency` (ISO 4217).
    public var currency: String?
    /// `appTransactionId`.
    public var appTransactionID: String?

    /// A transaction with every field nil.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "originalTransactionId", transactionID = "transactionId"
        case webOrderLineItemID = "webOrderLineItemId", bundleID = "bundleId", productID = "productId"
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity, type
        case appAccountToken, inAppOwnershipType, signedDate, revocationReason, revocationDate, isUpgraded
        case offerType, offerIdentifier, offerDiscountType, offerPeriod, environment, storefront
        case storefrontID = "storefrontId", transactionReason, price, currency, appTransactionID = "appTransactionId"
    }
}
