/// A notification whose signature, chain, markers, app and environment were verified, decoded
/// (Apple's `ResponseBodyV2DecodedPayload`), with its nested transaction and renewal info verified the same way.
public struct VerifiedNotification: Sendable, Equatable {
    /// `notificationType` (`SUBSCRIBED`, `DID_RENEW`, `TEST`, ...).
    public var notificationType: String
    /// `subtype`, when the type has one.
    public var subtype: String?
    /// `notificationUUID`: Apple sends a notification again under the same UUID until it gets a 200.
    public var notificationUUID: String
    /// `signedDate` (milliseconds since 1970): the date the certificates were checked at.
    public var signedDate: Int64
    /// `version` (`2.0`).
    public var version: String?
    /// The environment of `data` (or `summary`, `externalPurchaseToken`, `appData`).
    public var environment: AppStoreEnvironment
    /// The bundle identifier it was checked against.
    public var bundleID: String
    /// `appAppleId`, when sent (sandbox notifications may have none).
    public var appAppleID: Int64?
    /// `data.status` (the subscription's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
    public var status: Int?
    /// The verified `data.signedTransactionInfo`, when sent (TEST notifications have none).
    public var transaction: TransactionInfo?
    /// The verified `data.signedRenewalInfo`, when sent.
    public var renewal: RenewalInfo?

    /// A notification from its decoded parts (the verifier builds it; tests and other parts may too).
    public init(notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Int64,
                version: String? = "2.0", environment: AppStoreEnvironment, bundleID: String, appAppleID: Int64? = nil,
                status: Int? = nil, transaction: TransactionInfo? = nil, renewal: RenewalInfo? = nil) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.version = version
        self.environment = environment
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
    }
}

/// The members of a notification payload the verifier reads; others are ignored (Apple adds members).
struct NotificationPayload: Decodable {
    /// `data`, `summary` (RENEWAL_EXTENSION), `externalPurchaseToken`, `appData`: each names the app and environment.
    struct AppBlock: Decodable {
        var bundleId: String?
        var appAppleId: Int64?
        var environment: String?
        var status: Int?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var externalPurchaseId: String?
    }

    var notificationType: String
    var subtype: String?
    var notificationUUID: String
    var signedDate: Int64
    var version: String?
    var data: AppBlock?
    var summary: AppBlock?
    var externalPurchaseToken: AppBlock?
    var appData: AppBlock?

    /// The block that names the app, in the order of Apple's `SignedDataVerifier`, and its environment (an external
    /// purchase token has none: its `externalPurchaseId` starts with `SANDBOX` in the sandbox).
    var appBlock: (block: AppBlock, environment: String?)? {
        if let data { return (data, data.environment) }
        if let summary { return (summary, summary.environment) }
        if let token = externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token, sandbox ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue)
        }
        if let appData { return (appData, appData.environment) }
        return nil
    }
}
