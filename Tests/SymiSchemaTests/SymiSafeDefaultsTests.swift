import FlagClient
import FlagKit
import Foundation
import Testing
@testable import SymiSchema

/// The compiled-in values: valid, unlocking everything, and in step with `flags/production.json`.
@Suite struct SymiSafeDefaultsTests {
    /// Installs of every kind the documents target: ordinary, English, beta, both internal testers, no id at all.
    static let contexts: [EvaluationContext] = [
        Documents.germanApp.evaluationContext(installId: "5A1B0000-0000-4000-8000-00000000BEEF"),
        AppContext(appVersion: "2.4.0", locale: "en_US", channel: "appstore").evaluationContext(installId: "E1"),
        AppContext(appVersion: "2.5.0-beta.1", locale: "de_DE", channel: "testflight").evaluationContext(installId: "B1"),
        AppContext(appVersion: "2.5.0", channel: "testflight").evaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000001"),
        AppContext(channel: "debug").evaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000002"),
        EvaluationContext(),
    ]

    @Test func documentLiteralValidates() throws {
        #expect(FlagDocument.problems(in: Array(SymiSafeDefaults.json.utf8)).isEmpty)
        #expect(SymiSafeDefaults.document != nil)
    }

    @Test(arguments: contexts)
    func lockNothingForAnyone(context: EvaluationContext) throws {
        let snapshot = Documents.safeDefaults(context: context)
        let values = SymiFlagValues(snapshot)
        #expect(values.premiumFeaturesLocked == false)
        #expect(snapshot.results["premiumFeaturesLocked"]?.value == false)
        #expect(values.monetizationEnabled == true)
        #expect(values.showIntroFreeSubscriptionBanner == true)
        #expect(values.subscriptionPriceIncreaseMessagingEnabled == false)
        for feature in values.premiumFeatures + ["anythingElse"] {
            #expect(values.isAvailable(feature, entitled: false))
        }
        let rules = try #require(SymiSafeDefaults.document?.flags["premiumFeaturesLocked"]).rules
        #expect(rules.isEmpty, "no rule at all can lock from the safe defaults")
    }

    @Test func everyProductionFlagHasASafeValueOfItsType() throws {
        let production = try Documents.production()
        let safe = try #require(SymiSafeDefaults.document)
        #expect(Set(production.flags.keys).isSubset(of: Set(safe.flags.keys)))
        for (key, flag) in production.flags {
            let safeFlag = try #require(safe.flags[key], "\(key) has no safe default")
            #expect(safeFlag.type == flag.type, "\(key)")
            for context in Self.contexts {
                #expect(flag.type.accepts(safe.evaluate(key, context: context).value), "\(key)")
            }
        }
    }

    @Test(arguments: contexts)
    func copyProductsAndLinksMatchProduction(context: EvaluationContext) throws {
        let production = try Documents.production()
        let safe = try #require(SymiSafeDefaults.document)
        for key in production.flags.keys where key != "premiumFeaturesLocked" {
            #expect(safe.evaluate(key, context: context).value == production.evaluate(key, context: context).value,
                    "\(key) for \(context.locale ?? "no locale")")
        }
    }

    @Test func swiftConstantsEqualTheDocumentForAGermanInstall() throws {
        let values = SymiFlagValues(Documents.safeDefaults(context: Self.contexts[0]))
        let safe = try #require(SymiSafeDefaults.document)
        let context = Self.contexts[0]
        #expect(safe.evaluate("introOfferMessage", context: context).value == .string(SymiSafeDefaults.introOfferMessage))
        #expect(SubscriptionScreenCopy(json: safe.evaluate("subscriptionScreenCopy", context: context).value)
                == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(LegalLinks(json: safe.evaluate("legalLinks", context: context).value) == SymiSafeDefaults.legalLinks)
        #expect(safe.evaluate("premiumFeatures", context: context).value == .array(SymiSafeDefaults.premiumFeatures.map(JSONValue.string)))
        #expect(safe.evaluate("subscriptionProductIds", context: context).value
                == .array(SymiSafeDefaults.subscriptionProductIds.map(JSONValue.string)))
        #expect(safe.evaluate("billingRetryAccessDays", context: context).value == .integer(Int64(SymiSafeDefaults.billingRetryAccessDays)))
        #expect(SymiFlags.BillingRetryAccessDays.range.contains(SymiSafeDefaults.billingRetryAccessDays))
        #expect(values.subscriptionScreenCopy.subline == "Für kurze Zeit kostenlos")
        #expect(SymiSafeDefaults.legalLinks.privacyPolicy.absoluteString == "https://symi.app/datenschutz")
        #expect(SymiSafeDefaults.legalLinks.termsOfUse.absoluteString == "https://symi.app/nutzungsbedingungen")
    }

    @Test func copyNamesNoPriceAndPromisesNothingForever() {
        let texts = [SymiSafeDefaults.introOfferMessage] + [SymiSafeDefaults.subscriptionScreenCopy].flatMap {
            [$0.headline, $0.subline, $0.activationMessage, $0.futurePricingNotice, $0.restoreHint, $0.activateFreeButton,
             $0.restorePurchasesButton] + $0.benefits
        }
        for text in texts {
            #expect(!text.contains("€") && !text.contains("$"), "\(text)")
            #expect(!text.lowercased().contains("für immer") && !text.lowercased().contains("forever"), "\(text)")
        }
    }
}
