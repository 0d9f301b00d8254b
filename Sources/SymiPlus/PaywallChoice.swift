import SymiCatalog
import SymiSchema

/// Which products the Symi Plus screen shows when a price or offer experiment (`paywallProduct`) is running: the
/// arm's product in place of the default product of the same period, but only when StoreKit loaded it and it is a
/// subscription of the default products' group. Anything else shows the default products, as without an experiment:
/// a wrong or unloadable arm never leaves an empty or broken paywall (docs/guards.md, "Running an experiment").
///
/// An arm that names an offer is shown with its product only when StoreKit lists that promotional offer for it;
/// whether the offer's terms apply is decided afterwards (``PaywallOffer``: a current or lapsed subscriber, and a
/// signature from the server).
public enum PaywallChoice {
    /// What the screen ended up showing for the arm.
    public enum Outcome: Sendable, Equatable {
        /// `paywallProduct` is `""`: no experiment.
        case noExperiment
        /// The arm's product is shown (with its offer's terms when ``PaywallOffer`` applies them).
        case shown(product: String, offer: String?)
        /// The defaults are shown, and why.
        case fallback(Fallback)
    }

    /// Why an arm's product is not shown.
    public enum Fallback: String, Sendable, Equatable, CaseIterable {
        /// The value is not `product` or `product/offer`.
        case notAProductId
        /// The catalogue (``SymiCatalog``) does not know the product: never requested from the store.
        case unknownProduct
        /// The store did not load it (no such product in App Store Connect, or loading failed).
        case notLoaded
        /// It is not an auto-renewable subscription, or not in the group of the default products (a second group
        /// would be a second subscription, not a price).
        case otherGroup
        /// The arm names an offer StoreKit does not list for the product.
        case offerNotOffered
    }

    /// The ids to ask the store for: the defaults, then the arm's product when the catalogue knows it.
    public static func productIds(defaults: [String], paywallProduct: String) -> [String] {
        guard let (product, _) = SymiFlags.PaywallProduct.parse(paywallProduct), SymiCatalog.product(withId: product) != nil,
              !defaults.contains(product) else { return defaults }
        return defaults + [product]
    }

    /// The products to show, from the loaded ones: `defaults` are the default products as loaded (the flags' order).
    public static func choose(defaults: [StoreProduct], loaded: [StoreProduct],
                              paywallProduct: String) -> (products: [StoreProduct], outcome: Outcome) {
        guard !paywallProduct.isEmpty else { return (defaults, .noExperiment) }
        func fallback(_ reason: Fallback) -> (products: [StoreProduct], outcome: Outcome) { (defaults, .fallback(reason)) }
        guard let (id, offer) = SymiFlags.PaywallProduct.parse(paywallProduct) else { return fallback(.notAProductId) }
        guard SymiCatalog.product(withId: id) != nil else { return fallback(.unknownProduct) }
        guard let product = loaded.first(where: { $0.id == id }) else { return fallback(.notLoaded) }
        guard let period = product.subscriptionPeriod, let group = product.subscriptionGroupID,
              let reference = defaults.first?.subscriptionGroupID, group == reference else { return fallback(.otherGroup) }
        if let offer, !product.promotionalOfferIds.contains(offer) { return fallback(.offerNotOffered) }
        var shown = defaults.filter { $0.id != id }
        if let index = shown.firstIndex(where: { $0.subscriptionPeriod == period }) {
            shown[index] = product
        } else {
            shown.insert(product, at: 0)
        }
        return (shown, .shown(product: id, offer: offer))
    }
}
