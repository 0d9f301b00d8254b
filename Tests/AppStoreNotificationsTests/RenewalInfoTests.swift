import AppStoreNotifications
import Foundation
import Testing

/// `JWSRenewalInfoDecodedPayload` as Apple documents it: Apple's member names, every member optional, new ones ignored.
@Suite struct RenewalInfoTests {
    @Test func applesMemberNamesDecode() throws {
        let json = #"""
        {"autoRenewStatus":0,"expirationIntent":1,"priceIncreaseStatus":1,"isInBillingRetryPeriod":true,
         "gracePeriodExpiresDate":20,"autoRenewProductId":"a","productId":"p","originalTransactionId":"1","offerType":1,
         "offerIdentifier":"o","offerDiscountType":"FREE_TRIAL","renewalPrice":4990,"currency":"EUR","renewalDate":21,
         "recentSubscriptionStartDate":19,"environment":"Production","signedDate":22,"eligibleWinBackOfferIds":["w"]}
        """#
        let info = try JSONDecoder().decode(RenewalInfo.self, from: Data(json.utf8))
        var expected = RenewalInfo()
        expected.autoRenewStatus = 0
        expected.expirationIntent = 1
        expected.priceIncreaseStatus = 1
        expected.isInBillingRetryPeriod = true
        expected.gracePeriodExpiresDate = 20
        expected.autoRenewProductID = "a"
        expected.productID = "p"
        expected.originalTransactionID = "1"
        expected.offerType = 1
        expected.offerIdentifier = "o"
        expected.offerDiscountType = "FREE_TRIAL"
        expected.renewalPrice = 4990
        expected.currency = "EUR"
        expected.renewalDate = 21
        expected.recentSubscriptionStartDate = 19
        expected.environment = "Production"
        expected.signedDate = 22
        #expect(info == expected)
    }

    @Test func aMemberOfTheWrongTypeIsRefused() {
        for json in [#"{"autoRenewStatus":"1"}"#, #"{"isInBillingRetryPeriod":1}"#, #"{"renewalPrice":null}"#, "1"] {
            if json.contains("null") {
                // null is an absent member, as in Apple's libraries.
                #expect(throws: Never.self) { try JSONDecoder().decode(RenewalInfo.self, from: Data(json.utf8)) }
            } else {
                #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(RenewalInfo.self, from: Data(json.utf8)) }
            }
        }
    }
}
