import FlagClient
import Foundation

/// The subscriber's part of the Symi Plus screen (the paid state): how the subscription stands, the calm billing
/// notice with its one way to fix it, "Abo verwalten", a refund request, and the switch between monthly and yearly.
/// Decided from the access decision (``AccessDecision``), so every case is tested on Linux; ``SymiPlusView`` only lays
/// it out and opens Apple's sheets.
public struct SymiPlusSubscriptionPanel: Sendable, Equatable {
    /// The refund request: its title and the transaction it names (`Transaction.beginRefundRequest(for:in:)`).
    public struct Refund: Sendable, Equatable {
        /// "Rückerstattung anfordern".
        public var title: String
        /// The transaction of the current period.
        public var transactionId: UInt64
    }

    /// One line on how the subscription stands ("Aktiv. Verlängert sich am …", "Aktiv, endet am …"); `nil` without access.
    public var status: String?
    /// The billing notice while a renewal payment failed, with the way to fix it ("Abo verwalten").
    public var billingNotice: String?
    /// "Abo verwalten" (`AppStore.showManageSubscriptions` / `.manageSubscriptionsSheet`).
    public var manageButton: String
    /// The refund request, for a subscriber with a transaction to name.
    public var refund: Refund?
    /// The other catalogue products the subscriber can switch to (monthly to yearly and back), bought like an offer:
    /// StoreKit makes it a crossgrade at the next renewal. Empty while a switch is already scheduled.
    public var switchOffers: [SymiPlusScreen.Offer]

    /// The panel for this state, or `nil` for someone who neither has Symi Plus nor a failed renewal to fix.
    init?(purchases: PurchaseState, language: SymiPlusLanguage, localeIdentifier: String?, timeZone: TimeZone) {
        let access = purchases.access
        guard access.isEntitled || access.billingIssue != nil else { return nil }
        func date(_ value: Date) -> String {
            SymiPlusMessages.date(value, language, localeIdentifier: localeIdentifier, timeZone: timeZone)
        }
        manageButton = SymiPlusMessages.manageSubscription(language)
        if let issue = access.billingIssue {
            billingNotice = issue.accessUntil.map { SymiPlusMessages.fill(SymiPlusMessages.billingIssueActive, language, ["date": date($0)]) }
                ?? SymiPlusMessages.billingIssueEnded(language)
        }
        if access.isEntitled {
            if let end = access.endsAt {
                status = SymiPlusMessages.fill(SymiPlusMessages.endsOn, language, ["date": date(end)])
            } else if let target = access.switchesTo, let end = access.periodEnd {
                // StoreKit's localized name when the product is loaded; never the raw product id.
                status = purchases.products.first(where: { $0.id == target }).map { product in
                    SymiPlusMessages.fill(SymiPlusMessages.switchesOn, language, ["date": date(end), "name": product.displayName])
                } ?? SymiPlusMessages.fill(SymiPlusMessages.switchesOnUnnamed, language, ["date": date(end)])
            } else if access.basis == .subscribed, let end = access.periodEnd {
                status = SymiPlusMessages.fill(SymiPlusMessages.renewsOn, language, ["date": date(end)])
            } else {
                status = SymiPlusMessages.active(language)
            }
            refund = access.transactionId.map { Refund(title: SymiPlusMessages.requestRefund(language), transactionId: $0) }
        }
        let current = access.productId
        switchOffers = access.isEntitled && access.basis == .subscribed && access.switchesTo == nil && access.endsAt == nil
            ? purchases.products.filter { $0.id != current }.map { product in
                SymiPlusScreen.Offer(id: product.id, title: product.displayName, detail: product.description,
                                     buttonTitle: SymiPlusMessages.fill(SymiPlusMessages.switchTo, language,
                                                                        ["name": product.displayName, "price": product.displayPrice]),
                                     isFreeIntroduction: false)
            }
            : []
    }
}
