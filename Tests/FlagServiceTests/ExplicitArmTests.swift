import Testing
@testable import FlagService

/// The `arm` parameter of `GET /v1/appstore/experiment`: `PRODUCT[/OFFER]:SHARE[:AMOUNT:CUR]`.
@Suite struct ExplicitArmTests {
    @Test func armsWithAndWithoutOfferAndPrice() {
        #expect(ExplicitArm.parse("symi_plus_monthly_499:50") == ExplicitArm(product: "symi_plus_monthly_499", offer: nil, share: 50, price: nil))
        #expect(ExplicitArm.parse("p/winback:12.5:3.99:EUR")
            == ExplicitArm(product: "p", offer: "winback", share: 12.5, price: ExperimentPrice(milliunits: 3990, currency: "EUR", source: "parameter")))
        for bad in ["p", "p:0", "p:-5", "p:abc", "p:1e2", "p:50:4.99", "p:50:4.99:EUR:x", "a b:50", "p:50:4,99:EUR", ":50", "p:inf",
                    "p:1000001"] {
            #expect(ExplicitArm.parse(bad) == nil, "\(bad)")
        }
    }
}
