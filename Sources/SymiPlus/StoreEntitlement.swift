import Foundation

/// One verified transaction that grants access: what StoreKit's `Transaction` says about a purchase, reduced to
/// what deciding an entitlement needs. Only a transaction StoreKit verified (`VerificationResult.verified`)
/// ever becomes one; the app never derives an entitlement from anything it stored itself.
public struct StoreEntitlement: Sendable, Equatable {
    /// The product purchased.
    public var productId: String
    /// The transaction's id.
    public var transactionId: UInt64
    /// The id of the original purchase (the same across renewals).
    public var originalTransactionId: UInt64
    /// When it was purchased (or last renewed).
    public var purchaseDate: Date
    /// When the current period ends; `nil` for a product that does not expire.
    public var expirationDate: Date?
    /// When Apple refunded or revoked it (Family Sharing ended, refund); `nil` while it stands.
    public var revocationDate: Date?

    /// An entitlement from its parts.
    public init(productId: String, transactionId: UInt64, originalTransactionId: UInt64, purchaseDate: Date,
                expirationDate: Date? = nil, revocationDate: Date? = nil) {
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.revocationDate = revocationDate
    }

    /// Whether it grants access at `date`: not revoked, and not expired (an expiration date at or before `date` has
    /// passed). StoreKit's `currentEntitlements` already leaves such transactions out; this check is for the ones that
    /// arrive through `Transaction.updates` and for a subscription that ends while the app runs.
    public func isActive(at date: Date) -> Bool {
        if revocationDate != nil { return false }
        if let expirationDate, expirationDate <= date { return false }
        return true
    }
}
