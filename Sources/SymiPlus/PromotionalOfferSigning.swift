import FlagClient
import FlagKit
import Foundation

/// Who signs an experiment's promotional offer for one purchase: the flag service
/// (`POST /v1/environments/{env}/offer-signatures`, through ``FlagClient``), which holds the team's In-App Purchase
/// key. Behind a protocol so that the purchase logic is tested with a scripted signer as well as the real server.
public protocol PromotionalOfferSigning: Sendable {
    /// A fresh signature of `offer` of `product` (a new nonce each call), covering `appAccountToken` when the purchase
    /// carries one.
    func offerSignature(product: String, offer: String, appAccountToken: UUID?) async throws(OfferSignatureError)
        -> PromotionalOfferSignature
}

/// The app's client signs through the server it already reads its flags from, with the same read token.
extension FlagClient: PromotionalOfferSigning {}
