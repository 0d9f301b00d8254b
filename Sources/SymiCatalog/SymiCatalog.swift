/// The Symi Plus products as they exist (or will exist) in App Store Connect and in `storekit/Symi.storekit`: the
/// one place their ids are written down (brief section 1: "Product IDs zentral als Konstanten definieren").
///
/// A target of its own, without Foundation, so that both the app's `SymiPlus` module and `flagctl storekit check`
/// read the same constants without `flagctl` linking the app's client code.
public enum SymiCatalog {
    /// One auto-renewable subscription of the Symi Plus group.
    public struct Product: Sendable, Hashable {
        /// The StoreKit product id, identical in App Store Connect and the StoreKit configuration file.
        public let id: String
        /// The renewal period as ISO 8601 duration, as the StoreKit configuration file writes it (`P1M`, `P1Y`).
        public let recurringPeriod: String

        /// A product of the catalogue.
        public init(id: String, recurringPeriod: String) {
            self.id = id
            self.recurringPeriod = recurringPeriod
        }
    }

    /// The subscription group's reference name, in App Store Connect and the StoreKit file.
    public static let subscriptionGroupName = "Symi Plus"
    /// The group's id in `storekit/Symi.storekit`. App Store Connect assigns its own numeric id, which the app
    /// never needs: StoreKit reports it on each product (`subscription.subscriptionGroupID`).
    public static let subscriptionGroupID = "5E3A1C0D"

    /// Symi Plus monthly: the product offered today.
    public static let monthly = Product(id: "symi_plus_monthly", recurringPeriod: "P1M")
    /// Symi Plus yearly: planned; staging offers it already.
    public static let yearly = Product(id: "symi_plus_yearly", recurringPeriod: "P1Y")

    /// Symi Plus monthly at 3.99 and 4.99: the arms of a price test (`paywallProduct`, docs/monetization.md), in the
    /// same group and with the same free month as ``monthly``.
    public static let monthly399 = Product(id: "symi_plus_monthly_399", recurringPeriod: "P1M")
    public static let monthly499 = Product(id: "symi_plus_monthly_499", recurringPeriod: "P1M")

    /// Every product of the catalogue, in display order.
    public static let products = [monthly, yearly]
    /// The products only a price or offer experiment shows (never listed in `subscriptionProductIds`).
    public static let experimentProducts = [monthly399, monthly499]
    /// The ids of ``products`` and ``experimentProducts``.
    public static let productIds: Set<String> = Set((products + experimentProducts).map(\.id))

    /// The catalogue's product with `id` (an experiment's too), or `nil` for an id the catalogue does not know.
    public static func product(withId id: String) -> Product? {
        (products + experimentProducts).first { $0.id == id }
    }

    /// What a list of product ids from the server comes to.
    public struct Selection: Sendable, Equatable {
        /// The known ids, in the server's order, each once: what the app may load and show.
        public var offered: [String]
        /// Ids the catalogue does not know, in the server's order, each once: ignored (never shown) and reported.
        public var unknown: [String]

        /// A selection from its parts.
        public init(offered: [String], unknown: [String]) {
            self.offered = offered
            self.unknown = unknown
        }
    }

    /// Splits the server's `subscriptionProductIds` into the ids the catalogue knows and the ones it does not.
    /// A typo on the server must never reach the App Store request or the screen.
    public static func select(_ ids: [String]) -> Selection {
        var selection = Selection(offered: [], unknown: [])
        for id in ids {
            if productIds.contains(id) {
                if !selection.offered.contains(id) { selection.offered.append(id) }
            } else if !selection.unknown.contains(id) {
                selection.unknown.append(id)
            }
        }
        return selection
    }
}
