/// One arm of a price or offer experiment: what its paywall shows (the flag's string value names it) and its share
/// of the flag's percentage split.
public struct ExperimentArm: Sendable, Equatable, Hashable {
    /// The App Store product id the arm's paywall offers.
    public var product: String
    /// The promotional offer or offer code identifier the arm applies (`offerIdentifier` in the notifications); nil:
    /// none. An introductory offer has no identifier, so two arms of one product that differ only in their intro
    /// cannot be told apart (docs/guards.md).
    public var offer: String?
    /// The arm's share of the split (percent, or any positive scale: only ratios are used).
    public var share: Double
    /// The list price of one paid period in milliunits of `currency` (App Store Connect's price), for revenue at list
    /// price; nil: not given, no revenue figure.
    public var listPrice: Int64?
    /// The list price's currency (ISO 4217).
    public var currency: String?

    /// An arm.
    public init(product: String, offer: String? = nil, share: Double, listPrice: Int64? = nil, currency: String? = nil) {
        self.product = product
        self.offer = offer
        self.share = share
        self.listPrice = listPrice
        self.currency = currency
    }

    /// "product" or "product/offer", as reports name the arm.
    public var name: String { offer.map { "\(product)/\($0)" } ?? product }
}
