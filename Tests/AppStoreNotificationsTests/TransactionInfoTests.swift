import AppStoreNotifications
import Foundation
import Testing

/// `JWSTransactionDecodedPayload` as Apple documents it: Apple's member names, every member optional, new ones ignored.
@Suite struct TransactionInfoTests {
    @Test func applesMemberNamesDecode() throws {
        let json = #"""
        {"originalTransactionId":"1","transactionId":"2","webOrderLineItemId":"3","bundleId":"b","productId":"p",
         "subscriptionGroupIdentifier":"g","purchaseDate":10,"originalPurchaseDate":9,"expiresDate":11,"quantity":1,
         "type":"Auto-Renewable Subscription","appAccountToken":"t","inAppOwnershipType":"FAMILY_SHARED","signedDate":12,
         "revocationReason":1,"revocationDate":13,"isUpgraded":true,"offerType":4,"offerIdentifier":"o",
         "offerDiscountType":"PAY_AS_YOU_GO","offerPeriod":"P1M","environment":"Sandbox","storefront":"USA",
         "storefrontId":"143441","transactionReason":"RENEWAL","price":9990,"currency":"USD","appTransactionId":"a",
         "somethingApple":{"adds":"later"}}
        """#
        let info = try JSONDecoder().decode(TransactionInfo.self, from: Data(json.utf8))
        var expected = TransactionInfo()
        expected.originalTransactionID = "1"
        expected.transactionID = "2"
        expected.webOrderLineItemID = "3"
        expected.bundleID = "b"
        expected.productID = "p"
        expected.subscriptionGroupIdentifier = "g"
        expected.purchaseDate = 10
        expected.originalPurchaseDate = 9
        expected.expiresDate = 11
        expected.quantity = 1
        expected.type = "Auto-Renewable Subscription"
        expected.appAccountToken = "t"
        expected.inAppOwnershipType = "FAMILY_SHARED"
        expected.signedDate = 12
        expected.revocationReason = 1
        expected.revocationDate = 13
        expected.isUpgraded = true
        expected.offerType = 4
        expected.offerIdentifier = "o"
        expected.offerDiscountType = "PAY_AS_YOU_GO"
        expected.offerPeriod = "P1M"
        expected.environment = "Sandbox"
        expected.storefront = "USA"
        expected.storefrontID = "143441"
        expected.transactionReason = "RENEWAL"
        expected.price = 9990
        expected.currency = "USD"
        expected.appTransactionID = "a"
        #expect(info == expected)
    }

    @Test func anEmptyObjectIsATransactionWithNothing() throws {
        #expect(try JSONDecoder().decode(TransactionInfo.self, from: Data("{}".utf8)) == TransactionInfo())
    }

    @Test func aMemberOfTheWrongTypeIsRefused() {
        for json in [#"{"price":"9.99"}"#, #"{"expiresDate":1.5}"#, #"{"isUpgraded":"yes"}"#, #"{"productId":7}"#, "[]"] {
            #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(TransactionInfo.self, from: Data(json.utf8)) }
        }
    }
}
