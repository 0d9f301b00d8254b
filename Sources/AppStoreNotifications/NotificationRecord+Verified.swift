extension NotificationRecord {
    /// What is kept of a verified notification (docs/appstore.md lists it for the privacy policy): the transaction's
    /// product, offer, price and dates, the renewal info's state; `originalTransactionId` only as HMAC-SHA256 with
    /// `subscriptionKey` (lowercase hex), so one subscription's notifications can be followed without Apple's identifier;
    /// `appAccountToken` and `transactionId` never. The offer comes from the transaction, or from the renewal info
    /// when there is no transaction.
    public init(verified: VerifiedNotification, subscriptionKey: [UInt8], receivedAt: Int64) {
        self.init(notificationUUID: verified.notificationUUID, notificationType: verified.notificationType,
                  subtype: verified.subtype, signedDate: verified.signedDate, receivedAt: receivedAt,
                  environment: verified.environment.rawValue)
        let transaction = verified.transaction
        let renewal = verified.renewal
        productID = transaction?.productID ?? renewal?.productID
        if let transaction {
            offerType = transaction.offerType
            offerIdentifier = transaction.offerIdentifier
            offerDiscountType = transaction.offerDiscountType
        } else if let renewal {
            offerType = renewal.offerType
            offerIdentifier = renewal.offerIdentifier
            offerDiscountType = renewal.offerDiscountType
        }
        price = transaction?.price
        currency = transaction?.currency
        storefront = transaction?.storefront
        transactionReason = transaction?.transactionReason
        expiresDate = transaction?.expiresDate
        revocationReason = transaction?.revocationReason
        expirationIntent = renewal?.expirationIntent
        priceIncreaseStatus = renewal?.priceIncreaseStatus
        autoRenewStatus = renewal?.autoRenewStatus
        isInBillingRetryPeriod = renewal?.isInBillingRetryPeriod
        gracePeriodExpiresDate = renewal?.gracePeriodExpiresDate
        if let original = transaction?.originalTransactionID ?? renewal?.originalTransactionID {
            subscription = Self.subscriptionHash(originalTransactionID: original, key: subscriptionKey)
        }
    }

    /// HMAC-SHA256 of `originalTransactionID` with `key`, lowercase hex: the `subscription` of every record of it.
    public static func subscriptionHash(originalTransactionID: String, key: [UInt8]) -> String {
        let digest = LibCrypto.hmacSHA256(key: key, message: Array(originalTransactionID.utf8))
        let hexDigits = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(digest.count * 2)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
