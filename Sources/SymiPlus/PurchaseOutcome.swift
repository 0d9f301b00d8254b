/// How a purchase ended when it did not throw.
public enum PurchaseOutcome: Sendable, Equatable {
    /// StoreKit verified the transaction; the adapter has finished it. Grants the entitlement.
    case verified(StoreEntitlement)
    /// StoreKit could not verify the transaction (`VerificationResult.unverified`): ignored, grants nothing.
    case unverified(productId: String, reason: String)
    /// Waiting for approval (Ask to Buy) or for the bank (SCA); the result arrives later as a transaction update.
    case pending
    /// The user closed the payment sheet.
    case userCancelled
}
