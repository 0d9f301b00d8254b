import FlagClient
import FlagKit
import Foundation
import Testing
@testable import SymiSchema

/// The paid-state texts: all-or-nothing parsing, the `{price}` rule, and the fallback for documents without the flag.
@Suite struct SubscriptionPaidCopyTests {
    static let german: JSONValue = [
        "subline": "Erweiterte Funktionen", "monthlyButtonTemplate": "Für {price}/Monat starten",
        "yearlyButtonTemplate": "Für {price}/Jahr starten", "buttonTemplate": "Für {price} starten", "priceChangeNotice": "Der Preis ändert sich.",
    ]

    static func replacing(_ key: String, with value: JSONValue?) -> JSONValue {
        guard case .object(var members) = german else { return german }
        members[key] = value
        return .object(members)
    }

    @Test func parsesACompleteValue() throws {
        let copy = try #require(SubscriptionPaidCopy(json: Self.german))
        #expect(copy.monthlyButtonTemplate == "Für {price}/Monat starten")
        #expect(copy.priceChangeNotice == "Der Preis ändert sich.")
    }

    @Test(arguments: ["subline", "monthlyButtonTemplate", "yearlyButtonTemplate", "buttonTemplate", "priceChangeNotice"])
    func aMissingOrWrongMemberRejectsTheWholeValue(key: String) {
        #expect(SubscriptionPaidCopy(json: Self.replacing(key, with: nil)) == nil)
        #expect(SubscriptionPaidCopy(json: Self.replacing(key, with: 3)) == nil)
    }

    @Test func templatesNeedExactlyOnePricePlaceholder() {
        #expect(SubscriptionPaidCopy(json: Self.replacing("buttonTemplate", with: "Jetzt starten")) == nil)
        #expect(SubscriptionPaidCopy(json: Self.replacing("yearlyButtonTemplate", with: "{price} für {price}")) == nil)
        #expect(SubscriptionPaidCopy(json: Self.replacing("monthlyButtonTemplate", with: "Für {preis}/Monat")) == nil)
        #expect(SubscriptionPaidCopy(json: "text") == nil)
        #expect(SubscriptionPaidCopy.isTemplate("{price}") && !SubscriptionPaidCopy.isTemplate("price"))
    }

    @Test func fillUsesStoreKitsDisplayPrice() {
        #expect(SubscriptionPaidCopy.fill("Für {price}/Monat starten", price: "2,99 €") == "Für 2,99 €/Monat starten")
        #expect(SubscriptionPaidCopy.fill("Start for {price}/month", price: "$2.99") == "Start for $2.99/month")
    }

    @Test func productionCarriesBothLanguages() throws {
        let german = Documents.values(try Documents.production())
        let english = Documents.values(try Documents.production(),
                                       context: AppContext(locale: "en_US").evaluationContext(installId: "E1"))
        #expect(german.subscriptionPaidCopy == SymiSafeDefaults.subscriptionPaidCopy)
        #expect(english.subscriptionPaidCopy.monthlyButtonTemplate == "Start for {price}/month")
    }

    @Test func aDocumentWithoutTheFlagKeepsItsScreenCopyAndGetsTheSafeTextsInItsLanguage() throws {
        let older = try Documents.modified(try Documents.production()) { flags in
            flags["subscriptionPaidCopy"] = nil
            flags["introOfferMessage"] = ["type": "string", "default": "Text vom Server"]
        }
        let german = Documents.values(older)
        #expect(german.introOfferMessage == "Text vom Server")
        #expect(german.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(german.subscriptionPaidCopy == SymiSafeDefaults.subscriptionPaidCopy)
        let english = Documents.values(older, context: AppContext(locale: "en_GB").evaluationContext(installId: "E1"))
        #expect(english.subscriptionScreenCopy.subline == "Free for a limited time")
        #expect(english.subscriptionPaidCopy.yearlyButtonTemplate == "Start for {price}/year")
    }

    @Test func aBrokenValueFallsBackWhole() throws {
        let broken = try Documents.modified(try Documents.production()) { flags in
            flags["subscriptionPaidCopy"] = ["type": "json", "default": Self.replacing("buttonTemplate", with: "ohne Preis")]
        }
        #expect(Documents.values(broken).subscriptionPaidCopy == SymiSafeDefaults.subscriptionPaidCopy)
    }

    @Test func theSafeConstantEqualsTheSafeDocument() throws {
        let context = Documents.germanApp.evaluationContext(installId: "U1")
        let safe = try #require(SymiSafeDefaults.document)
        #expect(SubscriptionPaidCopy(json: safe.evaluate("subscriptionPaidCopy", context: context).value) == SymiSafeDefaults.subscriptionPaidCopy)
        #expect(SymiSafeDefaults.subscriptionPaidCopy(for: context) == SymiSafeDefaults.subscriptionPaidCopy)
        let texts = [SymiSafeDefaults.subscriptionPaidCopy.subline, SymiSafeDefaults.subscriptionPaidCopy.priceChangeNotice]
        for text in texts { #expect(!text.contains("€") && !text.lowercased().contains("kostenlos"), "\(text)") }
    }
}
