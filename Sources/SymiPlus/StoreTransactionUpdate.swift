/// A transaction StoreKit delivered outside a purchase call: a renewal, an Ask to Buy approval, a purchase on
/// another device, a refund or revocation (`Transaction.updates`).
public enum StoreTransactionUpdate: Sendable, Equatable {
    /// A verified transaction; revoked or expired ones included (they end access).
    case verified(StoreEntitlement)
    /// A transaction that failed verification: ignored, never grants anything.
    case unverified(productId: String, reason: String)
}
