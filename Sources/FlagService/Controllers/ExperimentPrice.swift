import AppStoreNotifications

/// List prices of an experiment's arms (docs/api.md, "Experiments"): given as `PRODUCT:AMOUNT:CUR`, or else the most
/// frequent regular price among the product's notifications.
struct ExperimentPrice: Sendable, Equatable {
    /// Milliunits of `currency` (App Store Connect's unit: 4.99 is 4990).
    var milliunits: Int64
    /// ISO 4217, three capital letters.
    var currency: String
    /// Where it came from: `parameter` or `notifications`.
    var source: String

    /// `AMOUNT` (a decimal in the currency's units, at most three decimals: `4.99`) and `CUR` (`EUR`), or nil.
    static func parse(amount: Substring, currency: Substring) -> ExperimentPrice? {
        let parts = amount.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, (1...9).contains(whole.count),
              whole.allSatisfy(\.isASCIIDigit), let units = Int64(whole) else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let value = Int64(digits) else { return nil }
            fraction = value * [1, 100, 10, 1][digits.count]
        }
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        return ExperimentPrice(milliunits: units * 1000 + fraction, currency: String(currency), source: "parameter")
    }

    /// `PRODUCT:AMOUNT:CUR` (the `price` parameter), or nil.
    static func parse(parameter text: String) -> (product: String, price: ExperimentPrice)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let (product, offer) = ExperimentSplit.parse(String(parts[0])), offer == nil,
              let price = parse(amount: parts[1], currency: parts[2]) else { return nil }
        return (product, price)
    }

    /// The most frequent price and currency among `records` of `product` bought without an offer (an offer's price
    /// is not the list price) and with a price above zero; ties go to the higher count's first in price, then
    /// currency order, so the answer does not depend on the records' order. Nil when there is none.
    static func mostFrequent(product: String, in records: [NotificationRecord]) -> ExperimentPrice? {
        var counts: [PriceKey: Int] = [:]
        for record in records where record.productID == product && record.offerType == nil {
            guard let price = record.price, price > 0, let currency = record.currency, !currency.isEmpty else { continue }
            counts[PriceKey(milliunits: price, currency: currency), default: 0] += 1
        }
        let best = counts.max { left, right in
            if left.value != right.value { return left.value < right.value }
            return (left.key.milliunits, left.key.currency) > (right.key.milliunits, right.key.currency)
        }
        return best.map { ExperimentPrice(milliunits: $0.key.milliunits, currency: $0.key.currency, source: "notifications") }
    }

    private struct PriceKey: Hashable {
        var milliunits: Int64
        var currency: String
    }
}
