import FlagClient
import FlagKit
import Foundation
import SymiSchema
import Testing

/// One document evaluated for one install: typed values, their fallbacks, and the premium gate.
@Suite struct SymiFlagValuesTests {
    @Test func productionValuesForAGermanInstall() throws {
        let snapshot = Documents.snapshot(try Documents.production())
        let values = SymiFlagValues(snapshot)
        #expect(values.monetizationEnabled && !values.premiumFeaturesLocked)
        #expect(values.showIntroFreeSubscriptionBanner && !values.subscriptionPriceIncreaseMessagingEnabled)
        #expect(values.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(values.subscriptionProductIds == ["symi_plus_monthly"])
        #expect(values.premiumFeatures.contains("pdfExport"))
        #expect(values.legalLinks == SymiSafeDefaults.legalLinks)
        #expect(values.billingRetryAccessDays == 3)
        #expect(values.paywallProduct == "", "no experiment")
        #expect(snapshot.results.count == 12)
    }

    @Test func premiumGate() throws {
        let open = Documents.values(try Documents.production())
        let locked = Documents.values(try Documents.locked())
        #expect(locked.premiumFeaturesLocked)
        for entitled in [false, true] {
            #expect(open.isAvailable("pdfExport", entitled: entitled))
            #expect(locked.isAvailable("journal", entitled: entitled), "unlisted features are never gated")
        }
        #expect(locked.isAvailable("pdfExport", entitled: true))
        #expect(!locked.isAvailable("pdfExport", entitled: false))
    }

    @Test func monetizationOffTurnsTheTestersGateOff() throws {
        let document = try Documents.modified(try Documents.production()) { flags in
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        let tester = EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000001")
        #expect(Documents.values(try Documents.production(), context: tester).premiumFeaturesLocked)
        let snapshot = Documents.snapshot(document, context: tester)
        let values = SymiFlagValues(snapshot)
        #expect(!values.monetizationEnabled && !values.premiumFeaturesLocked)
        #expect(snapshot.results["premiumFeaturesLocked"]?.reason == .disabled)
        #expect(!values.showIntroFreeSubscriptionBanner && !values.subscriptionPriceIncreaseMessagingEnabled)
    }

    @Test func monetizationOffUnlocksEvenAPaidLaunchWhoseDefaultIsLocked() throws {
        let document = try Documents.modified(try Documents.locked()) { flags in
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        let snapshot = Documents.snapshot(document)
        let values = SymiFlagValues(snapshot)
        #expect(snapshot.results["premiumFeaturesLocked"]?.value == true, "the raw evaluation: requires unmet gives the default")
        #expect(snapshot.bool("premiumFeaturesLocked", default: false), "generic lookups are raw")
        #expect(!values.premiumFeaturesLocked, "the typed value honours the master switch")
        #expect(values.isAvailable("pdfExport", entitled: false))
    }

    @Test func malformedStructuredValuesFallBackToTheSafeOnesWhole() throws {
        let document = try Documents.modified(try Documents.production()) { flags in
            flags["subscriptionScreenCopy"] = ["type": "json", "default": ["headline": "Nur eine Zeile"]]
            flags["legalLinks"] = ["type": "json", "default": ["privacyPolicyURL": "http://symi.app/datenschutz",
                                                               "termsOfUseURL": "https://symi.app/agb"]]
            flags["subscriptionProductIds"] = ["type": "json", "default": ["symi_plus_monthly", 7]]
            flags["premiumFeatures"] = ["type": "json", "default": "pdfExport"]
            flags["introOfferMessage"] = ["type": "boolean", "default": true]
            flags["paywallProduct"] = ["type": "integer", "default": 499]
            flags.removeValue(forKey: "showIntroFreeSubscriptionBanner")
        }
        let values = Documents.values(document)
        #expect(values.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(values.legalLinks == SymiSafeDefaults.legalLinks, "an http link is refused")
        #expect(values.subscriptionProductIds == SymiSafeDefaults.subscriptionProductIds)
        #expect(values.premiumFeatures == SymiSafeDefaults.premiumFeatures)
        #expect(values.introOfferMessage == SymiSafeDefaults.introOfferMessage)
        #expect(values.showIntroFreeSubscriptionBanner == SymiSafeDefaults.showIntroFreeSubscriptionBanner)
        #expect(values.paywallProduct == SymiSafeDefaults.paywallProduct, "a price is not a product id")
    }

    @Test func paywallProductIsTheInstallsArm() throws {
        let document = try Documents.modified(try Documents.production()) { flags in
            flags["paywallProduct"] = ["type": "string", "default": "symi_plus_monthly_499",
                                       "rules": [["value": "symi_plus_monthly_399/intro50", "rollout": 50]]]
        }
        var arms: Set<String> = []
        for index in 0..<200 {
            let context = EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-\(String(format: "%012d", index))")
            let value = Documents.values(document, context: context).paywallProduct
            #expect(document.evaluate("paywallProduct", context: context).value == .string(value))
            arms.insert(value)
        }
        #expect(arms == ["symi_plus_monthly_399/intro50", "symi_plus_monthly_499"])
        #expect(SymiFlags.PaywallProduct.parse("symi_plus_monthly_399/intro50").map { "\($0.product) \($0.offer ?? "-")" }
                    == "symi_plus_monthly_399 intro50")
        #expect(SymiFlags.PaywallProduct.parse("symi_plus_monthly_399").map { "\($0.product) \($0.offer ?? "-")" } == "symi_plus_monthly_399 -")
        for bad in ["", "/", "a/", "/b", "a/b/c", "a b"] { #expect(SymiFlags.PaywallProduct.parse(bad) == nil, "\(bad)") }
    }

    @Test(arguments: [(JSONValue.integer(7), 7), (.integer(0), 0), (.integer(-4), 0), (.integer(365), 60), (.integer(.max), 60)])
    func billingRetryAccessDaysIsClampedToApplesRetryPeriod(value: JSONValue, expected: Int) throws {
        let document = try Documents.modified(try Documents.production()) { flags in
            flags["billingRetryAccessDays"] = ["type": "integer", "default": value]
        }
        #expect(Documents.values(document).billingRetryAccessDays == expected)
    }

    /// The values clamp with `SymiFlags.BillingRetryAccessDays`, the definition `flagctl lint` warns against: at
    /// and beyond both ends of its range the app uses what the lint says it would.
    @Test func billingRetryAccessDaysFollowsTheSharedRange() throws {
        let range = SymiFlags.BillingRetryAccessDays.range
        for days in [range.lowerBound - 1, range.lowerBound, range.upperBound, range.upperBound + 1] {
            let document = try Documents.modified(try Documents.production()) { flags in
                flags["billingRetryAccessDays"] = ["type": "integer", "default": .integer(Int64(days))]
            }
            #expect(Documents.values(document).billingRetryAccessDays == SymiFlags.BillingRetryAccessDays.clamped(Int64(days)),
                    "\(days)")
            #expect(Documents.values(document).billingRetryAccessDays == min(max(days, range.lowerBound), range.upperBound))
        }
    }

    @Test func billingRetryAccessDaysMissingOrMistypedIsTheSafeDefault() throws {
        let missing = try Documents.modified(try Documents.production()) { flags in flags["billingRetryAccessDays"] = nil }
        #expect(Documents.values(missing).billingRetryAccessDays == SymiSafeDefaults.billingRetryAccessDays)
        let text = try Documents.modified(try Documents.production()) { flags in
            flags["billingRetryAccessDays"] = ["type": "string", "default": "7"]
        }
        #expect(Documents.values(text).billingRetryAccessDays == SymiSafeDefaults.billingRetryAccessDays)
        #expect(SymiFlagValues(Documents.safeDefaults(context: EvaluationContext())).billingRetryAccessDays == 3)
    }

    /// Without any document at all (a client given no safe-defaults document), every value is the Swift constant.
    @Test func anEmptySnapshotGivesTheSafeConstants() {
        let values = SymiFlagValues(FlagSnapshot(document: nil, context: EvaluationContext(installId: "U1", locale: "en_US")))
        #expect(!values.premiumFeaturesLocked && values.monetizationEnabled && values.showIntroFreeSubscriptionBanner)
        #expect(!values.subscriptionPriceIncreaseMessagingEnabled)
        #expect(values.billingRetryAccessDays == SymiSafeDefaults.billingRetryAccessDays)
        #expect(values.introOfferMessage == SymiSafeDefaults.introOfferMessage)
        #expect(values.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(values.subscriptionProductIds == SymiSafeDefaults.subscriptionProductIds)
        #expect(values.premiumFeatures == SymiSafeDefaults.premiumFeatures)
        #expect(values.legalLinks == SymiSafeDefaults.legalLinks)
        #expect(values.subscriptionPaidCopy.monthlyButtonTemplate == "Start for {price}/month",
                "the paid copy comes from the safe document in the install's language")
    }
}
