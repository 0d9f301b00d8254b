import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// ``StoreKitRule/paywallProduct``: an experiment's arms must be products of the StoreKit file in the paywall's group.
@Suite struct StoreKitCheckPaywallProductTests {
    /// Production's document with `paywallProduct` set to `definition`.
    static func document(_ definition: String) throws -> FlagDocument {
        var text = String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self)
        let old = #""paywallProduct": {"#
        #expect(text.contains(old))
        text = text.replacingOccurrences(of: old, with: #""paywallProduct": \#(definition), "paywallProductUnused": {"#)
        return try FlagDocument.decode(Array(text.utf8))
    }

    func findings(_ definition: String, _ configuration: StoreKitConfiguration? = nil) throws -> [String] {
        let storeKit = try configuration ?? StoreKitCheckTests.storeKit()
        return StoreKitCheck.check(try Self.document(definition), file: "production.json", against: storeKit, storeKitFile: "Symi.storekit")
            .map(\.description)
    }

    @Test func theRepositorysPriceTestProductsAreClean() throws {
        #expect(try findings(#"{"type": "string", "default": "", "rules": [{"value": "symi_plus_monthly_399", "rollout": 50}, {"value": "symi_plus_monthly_499"}]}"#) == [])
        #expect(try findings(#"{"type": "string", "default": "symi_plus_monthly"}"#) == [])
    }

    @Test func armsTheAppCannotShowAreReported() throws {
        let base = "production.json: /flags/paywallProduct"
        #expect(try findings(#"{"type": "string", "default": "symi_plus_monthly_599", "rules": [{"value": "symi plus", "rollout": 10}, {"value": "symi_plus_monthly_499/winback", "rollout": 20}]}"#) == [
            #"\#(base)/default: [paywall-product] "symi_plus_monthly_599" is not a subscription in Symi.storekit; the app shows subscriptionProductIds instead"#,
            #"\#(base)/rules/0/value: [paywall-product] "symi plus" is not "productId" or "productId/offerId"; the app shows subscriptionProductIds instead"#,
            #"\#(base)/rules/1/value: [paywall-product] "winback" is not a promotional offer of symi_plus_monthly_499 in Symi.storekit; the app shows symi_plus_monthly_499 without it"#,
        ])
        // A product in another group than the paywall's.
        var moved = try StoreKitCheckTests.storeKit()
        if let index = moved.groups[0].subscriptions.firstIndex(where: { $0.productId == "symi_plus_monthly_499" }) {
            let subscription = moved.groups[0].subscriptions.remove(at: index)
            moved.groups.append(.init(id: "9", name: "Symi Pro", localizations: [], subscriptions: [subscription], path: "/subscriptionGroups/1"))
        }
        #expect(try findings(#"{"type": "string", "default": "", "rules": [{"value": "symi_plus_monthly_499", "rollout": 50}]}"#, moved) == [
            #"\#(base)/rules/0/value: [paywall-product] "symi_plus_monthly_499" is in group "Symi Pro" of Symi.storekit, not "Symi Plus" of subscriptionProductIds' products; the app shows those instead"#,
        ])
        // An offer the file has is fine.
        var offered = try StoreKitCheckTests.storeKit()
        if let index = offered.groups[0].subscriptions.firstIndex(where: { $0.productId == "symi_plus_monthly_499" }) {
            offered.groups[0].subscriptions[index].promotionalOfferIds = ["winback"]
        }
        #expect(try findings(#"{"type": "string", "default": "", "rules": [{"value": "symi_plus_monthly_499/winback", "rollout": 50}]}"#, offered) == [])
    }
}
