import FlagKit
import Testing
@testable import FlagCtlKit

/// Reading Xcode's StoreKit configuration format.
@Suite struct StoreKitConfigurationTests {
    @Test func readsTheRepositorysFile() throws {
        let configuration = try StoreKitConfiguration.parse(try TestSupport.bytes("storekit/Symi.storekit"))
        let group = try #require(configuration.groups.first)
        #expect(configuration.groups.count == 1)
        #expect(group.name == "Symi Plus" && group.id == "5E3A1C0D" && group.path == "/subscriptionGroups/0")
        #expect(group.localizations.map(\.locale) == ["de", "en_US"])
        #expect(configuration.subscriptions.map(\.productId) == ["symi_plus_monthly", "symi_plus_yearly", "symi_plus_monthly_399",
                                                                  "symi_plus_monthly_499"])
        #expect(configuration.subscriptions.map(\.recurringPeriod) == ["P1M", "P1Y", "P1M", "P1M"])
        #expect(configuration.subscriptions.map(\.hasFreeIntroductoryOffer) == [true, true, true, true])
        #expect(configuration.subscriptions.map(\.displayPrice) == ["2.99", "29.99", "3.99", "4.99"] && configuration.storefront == "DEU")
        #expect(configuration.subscriptions.map(\.promotionalOfferIds) == [[], [], [], ["winback_50"]], "the offer arm's promotional offer")
        let (yearly, owner) = try #require(configuration.subscription("symi_plus_yearly"))
        #expect(yearly.path == "/subscriptionGroups/0/subscriptions/1" && owner.name == "Symi Plus")
        #expect(yearly.localizations.first?.displayName == "Symi Plus jährlich")
        #expect(configuration.subscription("symi_plus_weekly") == nil)
    }

    @Test func offersAndMissingMembers() throws {
        let text = #"{"subscriptionGroups": [{"name": "G", "subscriptions": [{"productID": "a", "introductoryOffer": null,"#
            + #" "localizations": [{"locale": "de"}, 3]}]}]}"#
        let subscription = try #require(try StoreKitConfiguration.parse(Array(text.utf8)).subscriptions.first)
        #expect(subscription.introductoryPaymentMode == nil && !subscription.hasFreeIntroductoryOffer)
        #expect(subscription.localizations == [.init(locale: "de", displayName: "", description: "")])
        #expect(subscription.recurringPeriod == nil)
        let offers = #"{"subscriptionGroups": [{"name": "G", "subscriptions": [{"productID": "a", "adHocOffers": [{"offerID": "winback"}, 4]}]}]}"#
        #expect(try StoreKitConfiguration.parse(Array(offers.utf8)).subscriptions.first?.promotionalOfferIds == ["winback"])
    }

    @Test(arguments: [
        ("{", "/: not JSON: line 1, column 2: "),
        ("[]", "/: must be an object (got array)"),
        (#"{"products": []}"#, "/subscriptionGroups: must be an array: this is not a StoreKit configuration file"),
        (#"{"subscriptionGroups": [1]}"#, "/subscriptionGroups/0: must be an object (got integer)"),
        (#"{"subscriptionGroups": [{"subscriptions": {}}]}"#, "/subscriptionGroups/0/subscriptions: must be an array"),
    ])
    func notAStoreKitFile(text: String, message: String) {
        #expect(throws: StoreKitConfiguration.FormatError.self) { try StoreKitConfiguration.parse(Array(text.utf8)) }
        do {
            _ = try StoreKitConfiguration.parse(Array(text.utf8))
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }
}
