/// One product and offer of an `OutcomeReport`: the counts of the records with this `productID`, `offerType` and
/// `offerIdentifier`, per bucket and in total (and `active`: the subscriptions whose latest notification has them).
public struct OutcomeGroup: Sendable, Equatable {
    /// The records' `productID`.
    public var product: String
    /// The records' `offerType` (nil: no offer).
    public var offerType: Int?
    /// The records' `offerIdentifier` (nil: none, as for an introductory offer).
    public var offerIdentifier: String?
    /// One per bucket of the report.
    public var series: [OutcomeCounts]
    /// The sum of `series`, but `active` is the gauge at the end of the range (the last bucket's).
    public var totals: OutcomeCounts

    /// A group; see each property.
    public init(product: String, offerType: Int?, offerIdentifier: String?, series: [OutcomeCounts], totals: OutcomeCounts) {
        self.product = product
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.series = series
        self.totals = totals
    }
}

/// What groups records: a product and an offer.
struct OutcomeGroupKey: Hashable, Comparable {
    var product: String
    var offerType: Int?
    var offerIdentifier: String?

    /// The group of `record`; nil for a record without a product (`TEST`).
    init?(_ record: NotificationRecord) {
        guard let product = record.productID else { return nil }
        self.product = product
        offerType = record.offerType
        offerIdentifier = record.offerIdentifier
    }

    /// By product (byte order), then offer type, then identifier; no offer before any.
    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.product != rhs.product { return Array(lhs.product.utf8).lexicographicallyPrecedes(rhs.product.utf8) }
        if lhs.offerType != rhs.offerType { return (lhs.offerType ?? Int.min) < (rhs.offerType ?? Int.min) }
        switch (lhs.offerIdentifier, rhs.offerIdentifier) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let left?, let right?): return Array(left.utf8).lexicographicallyPrecedes(right.utf8)
        }
    }
}
