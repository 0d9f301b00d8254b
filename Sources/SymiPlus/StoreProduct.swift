/// A subscription product as the store presents it: StoreKit's `Product` reduced to what the Symi Plus screen
/// shows, as a value the platform-neutral code and the Linux tests can hold.
///
/// The price is only ever StoreKit's localized `displayPrice` ("2,99 €"): the app never writes, computes or
/// caches an amount (brief section 9: "Preis immer aus StoreKit anzeigen").
public struct StoreProduct: Sendable, Equatable, Identifiable {
    /// The StoreKit product id (`symi_plus_monthly`).
    public var id: String
    /// The localized name from App Store Connect ("Symi Plus monatlich").
    public var displayName: String
    /// The localized description from App Store Connect.
    public var description: String
    /// StoreKit's localized price for one period ("2,99 €").
    public var displayPrice: String
    /// The renewal period; `nil` for a product that is not a subscription.
    public var subscriptionPeriod: Period?
    /// The introductory offer, if the product has one.
    public var introductoryOffer: IntroductoryOffer?
    /// The subscription group App Store Connect put it in (`subscription.subscriptionGroupID`); `nil` when unknown.
    public var subscriptionGroupID: String?
    /// Its promotional offers (`subscription.promotionalOffers`): for current and lapsed subscribers of the group, and
    /// only with a signature from the server (``PromotionalOfferSigning``).
    public var promotionalOffers: [PromotionalOffer]
    /// The ids of its promotional offers.
    public var promotionalOfferIds: [String] { promotionalOffers.map(\.id) }

    /// A product from its parts.
    public init(id: String, displayName: String, description: String, displayPrice: String, subscriptionPeriod: Period?,
                introductoryOffer: IntroductoryOffer? = nil, subscriptionGroupID: String? = nil, promotionalOffers: [PromotionalOffer] = []) {
        self.id = id
        self.displayName = displayName
        self.description = description
        self.displayPrice = displayPrice
        self.subscriptionPeriod = subscriptionPeriod
        self.introductoryOffer = introductoryOffer
        self.subscriptionGroupID = subscriptionGroupID
        self.promotionalOffers = promotionalOffers
    }

    /// Whether this user would get the product free for a while: a free introductory offer they are eligible for.
    public var offersFreeIntroduction: Bool {
        guard let offer = introductoryOffer else { return false }
        return offer.paymentMode == .free && offer.isEligible
    }

    /// A subscription period: `value` times `unit` (StoreKit's `Product.SubscriptionPeriod`).
    public struct Period: Sendable, Hashable {
        /// The unit of a period.
        public enum Unit: String, Sendable, Hashable, CaseIterable {
            /// Days.
            case day
            /// Weeks.
            case week
            /// Months.
            case month
            /// Years.
            case year
        }

        /// How many units.
        public var value: Int
        /// The unit.
        public var unit: Unit

        /// A period of `value` `unit`s.
        public init(value: Int, unit: Unit) {
            self.value = value
            self.unit = unit
        }

        /// One month.
        public static let month = Period(value: 1, unit: .month)
        /// One year.
        public static let year = Period(value: 1, unit: .year)
    }

    /// An introductory offer (StoreKit's `Product.SubscriptionOffer` of type introductory), with whether this user
    /// may still take it (`isEligibleForIntroOffer`: once per subscription group and Apple ID).
    public struct IntroductoryOffer: Sendable, Equatable {
        /// How the offer is paid.
        public enum PaymentMode: String, Sendable, Hashable {
            /// Free for the offer's duration (StoreKit's `freeTrial`).
            case free
            /// A reduced price each period (`payAsYouGo`).
            case payAsYouGo
            /// A reduced price once for the whole duration (`payUpFront`).
            case payUpFront
        }

        /// How it is paid.
        public var paymentMode: PaymentMode
        /// StoreKit's localized offer price ("0,00 €" for a free offer; never shown for one).
        public var displayPrice: String
        /// The length of one offer period.
        public var period: Period
        /// How many offer periods (`periodCount`).
        public var periodCount: Int
        /// Whether this user may still take the offer.
        public var isEligible: Bool

        /// An offer from its parts.
        public init(paymentMode: PaymentMode, displayPrice: String, period: Period, periodCount: Int = 1, isEligible: Bool) {
            self.paymentMode = paymentMode
            self.displayPrice = displayPrice
            self.period = period
            self.periodCount = periodCount
            self.isEligible = isEligible
        }
    }

    /// A promotional offer (StoreKit's `Product.SubscriptionOffer` of type promotional): its terms as StoreKit
    /// localizes them. Whether this user may take it is the App Store's decision at purchase time.
    public struct PromotionalOffer: Sendable, Equatable {
        /// The offer's id in App Store Connect (`winback_50`).
        public var id: String
        /// How it is paid.
        public var paymentMode: IntroductoryOffer.PaymentMode
        /// StoreKit's localized offer price for one offer period (or for the whole duration when paid up front).
        public var displayPrice: String
        /// The length of one offer period.
        public var period: Period
        /// How many offer periods.
        public var periodCount: Int

        /// An offer from its parts.
        public init(id: String, paymentMode: IntroductoryOffer.PaymentMode, displayPrice: String, period: Period, periodCount: Int = 1) {
            self.id = id
            self.paymentMode = paymentMode
            self.displayPrice = displayPrice
            self.period = period
            self.periodCount = periodCount
        }
    }
}
