import AppStoreNotifications
import Testing
@testable import FlagService

/// List prices: parsed from `PRODUCT:AMOUNT:CUR` exactly (milliunits, no floating point), or the most frequent regular
/// price among a product's notifications.
@Suite struct ExperimentPriceTests {
    @Test func amountsAreReadExactlyInMilliunits() {
        let cases: [(String, Int64)] = [("4.99", 4990), ("5", 5000), ("0.5", 500), ("12.345", 12_345), ("0", 0), ("999999999.999", 999_999_999_999)]
        for (amount, milliunits) in cases {
            #expect(ExperimentPrice.parse(amount: Substring(amount), currency: "EUR")?.milliunits == milliunits, "\(amount)")
        }
        for (amount, currency) in [("4,99", "EUR"), ("4.9999", "EUR"), ("-1", "EUR"), (".5", "EUR"), ("5.", "EUR"), ("1e3", "EUR"),
                                   ("4.99", "eur"), ("4.99", "EURO"), ("4.99", ""), ("1234567890", "EUR"), ("٤", "EUR")] {
            #expect(ExperimentPrice.parse(amount: Substring(amount), currency: Substring(currency)) == nil, "\(amount) \(currency)")
        }
        let parsed = ExperimentPrice.parse(parameter: "symi_plus_monthly_499:4.99:EUR")
        #expect(parsed?.product == "symi_plus_monthly_499" && parsed?.price == ExperimentPrice(milliunits: 4990, currency: "EUR", source: "parameter"))
        for bad in ["symi_plus_monthly_499:4.99", "a/offer:4.99:EUR", ":4.99:EUR", "a:4.99:EUR:x"] {
            #expect(ExperimentPrice.parse(parameter: bad) == nil, "\(bad)")
        }
    }

    /// A record of `product` paid `price` in `currency`, with an offer when `offerType` is given.
    static func record(_ product: String, _ price: Int64?, _ currency: String? = "EUR", offerType: Int? = nil) -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: "\(product)-\(price ?? -1)-\(currency ?? "")-\(offerType ?? 0)",
                                        notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: 0, receivedAt: 0,
                                        environment: "Production")
        record.productID = product
        record.offerType = offerType
        record.price = price
        record.currency = currency
        return record
    }

    @Test func theMostFrequentRegularPriceOfTheProduct() {
        let records = [Self.record("p", 4990), Self.record("p", 4990), Self.record("p", 5490, "USD"), Self.record("p", 0, offerType: 1),
                       Self.record("p", 990, offerType: 1), Self.record("p", 990, offerType: 1), Self.record("p", 990, offerType: 1),
                       Self.record("q", 2990), Self.record("q", 2990), Self.record("q", 2990), Self.record("p", nil), Self.record("p", 4990, nil)]
        #expect(ExperimentPrice.mostFrequent(product: "p", in: records) == ExperimentPrice(milliunits: 4990, currency: "EUR", source: "notifications"),
                "offers' prices are not list prices; another product's are not this one's")
        // A tie goes to the lower price, then the currency's order: the same answer for any order of the records.
        let tie = [Self.record("p", 5990), Self.record("p", 4990, "USD"), Self.record("p", 4990, "EUR")]
        for records in [tie, tie.reversed()] {
            #expect(ExperimentPrice.mostFrequent(product: "p", in: records)?.currency == "EUR")
            #expect(ExperimentPrice.mostFrequent(product: "p", in: records)?.milliunits == 4990)
        }
        #expect(ExperimentPrice.mostFrequent(product: "r", in: records) == nil)
    }
}
