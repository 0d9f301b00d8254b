/// One `arm` parameter of `GET /v1/appstore/experiment`: `PRODUCT[/OFFER]:SHARE[:AMOUNT:CUR]`.
struct ExplicitArm: Sendable, Equatable {
    var product: String
    var offer: String?
    /// Percent (or any positive scale).
    var share: Double
    var price: ExperimentPrice?

    /// The parameter's arm, or nil when it is malformed.
    static func parse(_ text: String) -> ExplicitArm? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 4, let (product, offer) = ExperimentSplit.parse(String(parts[0])),
              parts[1].allSatisfy({ $0.isASCIIDigit || $0 == "." }), let share = Double(parts[1]), share.isFinite, share > 0,
              share <= 1_000_000 else { return nil }
        var price: ExperimentPrice?
        if parts.count == 4 {
            guard let parsed = ExperimentPrice.parse(amount: parts[2], currency: parts[3]) else { return nil }
            price = parsed
        }
        return ExplicitArm(product: product, offer: offer, share: share, price: price)
    }
}

extension Character {
    /// `0` to `9` only (not other scripts' digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
