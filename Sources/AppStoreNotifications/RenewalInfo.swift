/// A verified `signedRenewalInfo`: Apple's `JWSRenewalInfoDecodedPayload`. Every field is optional as in Apple's
/// documentation and libraries; fields Apple adds later are ignored. Times are milliseconds since 1970.
public struct RenewalInfo: Sendable, Equatable, Decodable {
    /// `autoRenewStatus` (0 off, 1 on).
    public var autoRenewStatus: Int?
    /// `expirationIntent` (1 cancelled, 2 billing error, 3 price increase declined, 4 not for sale, 5 other).
    public var expirationIntent: Int?
    /// `priceIncreaseStatus` (0 not yet consented, 1 consented or not required).
    public var priceIncreaseStatus: Int?
    /// `isInBillingRetryPeriod`.
    public var isInBillingRetryPeriod: Bool?
    /// `gracePeriodExpiresDate`.
    public var gracePeriodExpiresDate: Int64?
    /// `autoRenewProductId`: the product the subscription renews to.
    public var autoRenewProductID: String?
    /// `productId`.
    public var productID: String?
    /// `originalTransactionId`.
    public var originalTransactionID: String?
    /// `offerType` of the next renewal.
    public var offerType: Int?
    /// `offerIdentifier` of the next renewal.
    public var offerIdentifier: String?
    /// `offerDiscountType` of the next renewal.
    public var offerDiscountType: String?
    /// `renewalPrice`, in milliunits of `currency`.
    public var renewalPrice: Int64?
    /// `currency` (ISO 4217).
    public var currency: String?
    /// `renewalDate`.
    public var renewalDate: Int64?
    /// `recentSubscriptionStartDate`.
    public var recentSubscriptionStartDate: Int64?
    /// `environment` (`Production`, `Sandbox`, ...), as sent.
    public var environment: String?
    /// `signedDate`: when Apple signed it; the date its certificates are checked at.
    public var signedDate: Int64?

    /// Renewal info with every field nil.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case autoRenewStatus, expirationIntent, priceIncreaseStatus, isInBillingRetryPeriod, gracePeriodExpiresDate
        case autoRenewProductID = "autoRenewProductId", productID = "productId"
        case originalTransactionID = "originalTransactionId", offerType, offerIdentifier, offerDiscountType
        case renewalPrice, currency, renewalDate, recentSubscriptionStartDate, environment, signedDate
    }
}
