import FlagClient
import Foundation
import SymiSchema

/// What the Symi Plus screen shows (brief section 4), decided from the remote copy, the products, the entitlement
/// and the eligibility for the free introductory offer: a pure value, so every state is tested on Linux and the
/// SwiftUI view (``SymiPlusView``) only lays it out.
///
/// Honesty rules built in: the free texts ("Für kurze Zeit kostenlos", "Kostenlos aktivieren") appear only while a
/// loaded product offers this user a free introductory offer; otherwise the paid copy's subline and a price button
/// with StoreKit's `displayPrice` are shown. Restore and both legal links are always there.
public struct SymiPlusScreen: Sendable, Equatable {
    /// What state the screen is in; ``message`` says it in words.
    public enum Status: Sendable, Equatable {
        /// Products are being loaded.
        case loading
        /// Products are shown and can be bought (also after a cancelled purchase: no message).
        case ready
        /// A purchase or restore is under way; the buttons are disabled.
        case working
        /// The store could not be reached or offers none of the products; Symi stays fully usable.
        case productsUnavailable
        /// A purchase waits for approval (Ask to Buy).
        case pending
        /// A purchase or restore failed, or a purchase could not be verified.
        case failed
        /// A restore found nothing to restore.
        case nothingToRestore
        /// The user has Symi Plus.
        case subscribed
    }

    /// One product's row and button.
    public struct Offer: Sendable, Equatable, Identifiable {
        /// The product id.
        public var id: String
        /// StoreKit's localized name.
        public var title: String
        /// StoreKit's localized description.
        public var detail: String
        /// "Kostenlos aktivieren" while a free introductory offer applies, else the price template with StoreKit's price.
        public var buttonTitle: String
        /// Whether the button starts the free introductory offer.
        public var isFreeIntroduction: Bool
        /// The experiment arm's promotional offer the button's terms and the purchase carry (``PaywallOffer``); `nil`
        /// for a product at its own terms.
        public var promotionalOfferId: String? = nil
    }

    /// A link with its title.
    public struct Link: Sendable, Equatable {
        /// The visible title.
        public var title: String
        /// Where it goes (https).
        public var url: URL
    }

    /// The screen's language (the flags' locale).
    public var language: SymiPlusLanguage
    /// "Symi Plus".
    public var headline: String
    /// "Für kurze Zeit kostenlos" while a free introductory offer applies, else the paid copy's subline.
    public var subline: String
    /// The invitation to activate the free offer; only while one applies and the user is not subscribed.
    public var activationMessage: String?
    /// That selected premium features may become paid later: always shown, the honest counterpart of "free".
    public var futurePricingNotice: String
    /// The price-change notice: only while `subscriptionPriceIncreaseMessagingEnabled` is on and only for a subscriber
    /// whose price increase awaits consent (``AccessDecision/priceIncreasePending``); nobody else has anything to decide.
    public var priceChangeNotice: String?
    /// The subscriber's panel (status, billing notice, "Abo verwalten", refund, plan switch); `nil` for others.
    public var subscription: SymiPlusSubscriptionPanel?
    /// "Code einlösen": Apple's offer code sheet, for everyone.
    public var redeemCodeButton: String
    /// The benefits, in order.
    public var benefits: [String]
    /// One row per loaded product, in the flags' order; empty for a subscriber and while nothing is loaded.
    public var offers: [Offer]
    /// Whether the offer buttons can be tapped.
    public var purchaseEnabled: Bool
    /// "Käufe wiederherstellen": always offered (brief section 9).
    public var restoreButton: String
    /// "Du kannst Käufe jederzeit wiederherstellen."
    public var restoreHint: String
    /// The retry button's title while the products are unavailable.
    public var retryButton: String?
    /// Privacy policy.
    public var privacyPolicy: Link
    /// Terms of use.
    public var termsOfUse: Link
    /// The state.
    public var status: Status
    /// The state in words; `nil` for ``Status/ready``.
    public var message: String?

    /// The screen for these flags and this purchase state, in the flags' language; dates in `timeZone`.
    public init(flags snapshot: FlagSnapshot, purchases: PurchaseState, timeZone: TimeZone = .current) {
        self.init(flags: SymiFlagValues(snapshot), localeIdentifier: snapshot.context.locale, purchases: purchases,
                  timeZone: timeZone)
    }

    /// The screen for these typed values in the language of `localeIdentifier` (the flags' context's locale).
    init(flags: SymiFlagValues, localeIdentifier: String?, purchases: PurchaseState, timeZone: TimeZone) {
        let language = SymiPlusLanguage(localeIdentifier: localeIdentifier)
        let copy = flags.subscriptionScreenCopy
        let paid = flags.subscriptionPaidCopy
        let subscribed = purchases.isPremiumEntitled
        let freeApplies = !subscribed && purchases.products.contains(where: \.offersFreeIntroduction)
        self.language = language
        headline = copy.headline
        subline = freeApplies ? copy.subline : paid.subline
        activationMessage = freeApplies ? copy.activationMessage : nil
        futurePricingNotice = copy.futurePricingNotice
        priceChangeNotice = flags.subscriptionPriceIncreaseMessagingEnabled && subscribed && purchases.access.priceIncreasePending
            ? paid.priceChangeNotice : nil
        subscription = SymiPlusSubscriptionPanel(purchases: purchases, language: language, localeIdentifier: localeIdentifier,
                                                 timeZone: timeZone)
        redeemCodeButton = SymiPlusMessages.redeemCode(language)
        benefits = copy.benefits
        offers = subscribed ? [] : purchases.products.map { product in
            if let (offer, _) = purchases.paywallOffer.applied(to: product.id) {
                // The App Store applies a promotional offer instead of the introductory one: its terms, not "free".
                return Offer(id: product.id, title: product.displayName, detail: product.description,
                             buttonTitle: SymiPlusMessages.offerButton(offer, of: product, language), isFreeIntroduction: false,
                             promotionalOfferId: offer.id)
            }
            let free = product.offersFreeIntroduction
            return Offer(id: product.id, title: product.displayName, detail: product.description,
                         buttonTitle: free ? copy.activateFreeButton : Self.priceButton(for: product, copy: paid),
                         isFreeIntroduction: free)
        }
        purchaseEnabled = !purchases.isLoading
        restoreButton = copy.restorePurchasesButton
        restoreHint = copy.restoreHint
        privacyPolicy = Link(title: SymiPlusMessages.privacyPolicy(language), url: flags.legalLinks.privacyPolicy)
        termsOfUse = Link(title: SymiPlusMessages.termsOfUse(language), url: flags.legalLinks.termsOfUse)
        let (status, text) = Self.status(of: purchases)
        self.status = status
        message = text?(language)
        retryButton = status == .productsUnavailable ? SymiPlusMessages.retry(language) : nil
    }

    /// The price button: the paid copy's template for the product's period with StoreKit's `displayPrice`.
    static func priceButton(for product: StoreProduct, copy: SubscriptionPaidCopy) -> String {
        let template = switch product.subscriptionPeriod {
        case .some(StoreProduct.Period.month): copy.monthlyButtonTemplate
        case .some(StoreProduct.Period.year): copy.yearlyButtonTemplate
        default: copy.buttonTemplate
        }
        return SubscriptionPaidCopy.fill(template, price: product.displayPrice)
    }

    /// The state and its message, most important first: an action under way, a subscription, then the last action's
    /// result, then how far the products got.
    static func status(of purchases: PurchaseState) -> (Status, SymiPlusMessages.Text?) {
        switch purchases.activity {
        case .purchasing, .restoring: return (.working, nil)
        default: break
        }
        if purchases.isPremiumEntitled { return (.subscribed, SymiPlusMessages.subscribed) }
        switch purchases.activity {
        case .pending: return (.pending, SymiPlusMessages.pending)
        case .unverified: return (.failed, SymiPlusMessages.unverified)
        case .failed(let error):
            if let text = SymiPlusMessages.message(for: error) { return (.failed, text) }
        case .restored(foundPurchases: false): return (.nothingToRestore, SymiPlusMessages.nothingToRestore)
        case .idle, .cancelled, .purchased, .restored, .purchasing, .restoring: break
        }
        switch purchases.productsPhase {
        case .notLoaded, .loading: return (.loading, SymiPlusMessages.loading)
        case .unavailable: return (.productsUnavailable, SymiPlusMessages.productsUnavailable)
        case .loaded: return purchases.products.isEmpty ? (.productsUnavailable, SymiPlusMessages.productsUnavailable) : (.ready, nil)
        }
    }
}
