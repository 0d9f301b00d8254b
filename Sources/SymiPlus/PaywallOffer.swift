import FlagKit

/// Whether the experiment arm's promotional offer (`paywallProduct` = `product/offer`) is applied on the paywall.
///
/// The App Store gives a promotional offer only to current and lapsed subscribers of the group, and only with a
/// signature the server makes with the team's key. The offer's terms are shown only when both hold: the person has
/// a subscription status in the group (``PurchaseState/statuses``, read from StoreKit) and the server signed the offer
/// for them. Otherwise the arm's product is shown at its own terms, as for an arm without an offer: the paywall never
/// promises a price the purchase would not give.
public enum PaywallOffer: Sendable, Equatable {
    /// The arm names no offer, or no arm's product is shown.
    case none
    /// The offer's terms are shown on `product`'s button and the purchase applies them. `signature` is the one made
    /// when the offer was prepared, `nil` once a purchase used it (a nonce is for one purchase: the next purchase asks
    /// for a new one).
    case applied(product: String, offer: StoreProduct.PromotionalOffer, signature: PromotionalOfferSignature?)
    /// The product is shown at its own terms, and why.
    case notApplied(product: String, offer: String, reason: NotApplied)

    /// Why an arm's offer is not applied.
    public enum NotApplied: Sendable, Equatable {
        /// The subscription statuses have not been read yet (decided again when they are).
        case statusUnknown
        /// No subscription of the group, ever: a promotional offer is for current and lapsed subscribers (a new
        /// subscriber gets the introductory offer, if the product has one).
        case newSubscriber
        /// The app was built without a signer (no flag service to ask).
        case noSigner
        /// The server did not sign it (its error, for logs).
        case signingFailed(String)
        /// The App Store refused the offer for this Apple ID at a purchase.
        case refusedByStore
    }

    /// The offer applied to `productId`, with its signature if one is unused.
    func applied(to productId: String) -> (offer: StoreProduct.PromotionalOffer, signature: PromotionalOfferSignature?)? {
        guard case .applied(let product, let offer, let signature) = self, product == productId else { return nil }
        return (offer, signature)
    }

    /// What preparing the offer does next.
    enum Step: Sendable, Equatable {
        /// Set this state (nothing to sign).
        case set(PaywallOffer)
        /// Ask the server to sign `offer` of `product`.
        case sign(product: String, offer: String)
    }

    /// The next step for the paywall's current choice: the person may take the arm's offer and no usable signature
    /// is held, so sign; or the state that holds without signing.
    static func next(outcome: PaywallChoice.Outcome, current: PaywallOffer, statusesChecked: Bool,
                     statuses: [SubscriptionStatus], hasSigner: Bool, nowMilliseconds: Int64) -> Step {
        guard case .shown(let product, let offer?) = outcome else { return .set(.none) }
        switch current {
        case .applied(product, let terms, let signature?) where terms.id == offer && signature.isUsable(at: nowMilliseconds):
            return .set(current)
        case .notApplied(product, offer, .refusedByStore):
            return .set(current)  // the store said no for this Apple ID: asking again in this run would only fail again
        default:
            break
        }
        guard statusesChecked else { return .set(.notApplied(product: product, offer: offer, reason: .statusUnknown)) }
        guard !statuses.isEmpty else { return .set(.notApplied(product: product, offer: offer, reason: .newSubscriber)) }
        guard hasSigner else { return .set(.notApplied(product: product, offer: offer, reason: .noSigner)) }
        return .sign(product: product, offer: offer)
    }
}
