import FlagKit
import Foundation
import Testing
@testable import FlagClient

/// One document evaluated for one install: typed values, their fallbacks, and the premium gate.
@Suite struct FlagSnapshotTests {
    static func snapshot(_ document: FlagDocument, context: EvaluationContext = TestClients.germanApp.evaluationContext(installId: "U1"))
        throws -> FlagSnapshot {
        let envelope = try FlagEnvelope.decode(Envelopes.make(document, version: 3).body)
        return FlagSnapshot(envelope: envelope, source: .server(version: 3, fetchedAt: Date()), context: context)
    }

    @Test func productionValuesForAGermanInstall() throws {
        let snapshot = try Self.snapshot(try Envelopes.production())
        #expect(snapshot.monetizationEnabled && !snapshot.premiumFeaturesLocked)
        #expect(snapshot.showIntroFreeSubscriptionBanner && !snapshot.subscriptionPriceIncreaseMessagingEnabled)
        #expect(snapshot.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(snapshot.subscriptionProductIds == ["symi_plus_monthly"])
        #expect(snapshot.premiumFeatures.contains("pdfExport"))
        #expect(snapshot.legalLinks == SymiSafeDefaults.legalLinks)
        #expect(snapshot.billingRetryAccessDays == 3)
        #expect(snapshot.results.count == 11)
    }

    @Test func premiumGate() throws {
        let open = try Self.snapshot(try Envelopes.production())
        let locked = try Self.snapshot(try Envelopes.locked())
        #expect(locked.premiumFeaturesLocked)
        for entitled in [false, true] {
            #expect(open.isAvailable("pdfExport", entitled: entitled))
            #expect(locked.isAvailable("journal", entitled: entitled), "unlisted features are never gated")
        }
        #expect(locked.isAvailable("pdfExport", entitled: true))
        #expect(!locked.isAvailable("pdfExport", entitled: false))
    }

    @Test func monetizationOffTurnsTheTestersGateOff() throws {
        let document = try Envelopes.modified(try Envelopes.production()) { flags in
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        let tester = EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000001")
        #expect(try Self.snapshot(try Envelopes.production(), context: tester).premiumFeaturesLocked)
        let snapshot = try Self.snapshot(document, context: tester)
        #expect(!snapshot.monetizationEnabled && !snapshot.premiumFeaturesLocked)
        #expect(snapshot.results["premiumFeaturesLocked"]?.reason == .disabled)
        #expect(!snapshot.showIntroFreeSubscriptionBanner && !snapshot.subscriptionPriceIncreaseMessagingEnabled)
    }

    @Test func monetizationOffUnlocksEvenAPaidLaunchWhoseDefaultIsLocked() throws {
        let document = try Envelopes.modified(try Envelopes.locked()) { flags in
            flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        }
        let snapshot = try Self.snapshot(document)
        #expect(snapshot.results["premiumFeaturesLocked"]?.value == true, "the raw evaluation: requires unmet gives the default")
        #expect(snapshot.bool("premiumFeaturesLocked", default: false), "generic lookups are raw")
        #expect(!snapshot.premiumFeaturesLocked, "the typed value honours the master switch")
        #expect(snapshot.isAvailable("pdfExport", entitled: false))
    }

    @Test func malformedStructuredValuesFallBackToTheSafeOnesWhole() throws {
        let document = try Envelopes.modified(try Envelopes.production()) { flags in
            flags["subscriptionScreenCopy"] = ["type": "json", "default": ["headline": "Nur eine Zeile"]]
            flags["legalLinks"] = ["type": "json", "default": ["privacyPolicyURL": "http://symi.app/datenschutz",
                                                               "termsOfUseURL": "https://symi.app/agb"]]
            flags["subscriptionProductIds"] = ["type": "json", "default": ["symi_plus_monthly", 7]]
            flags["premiumFeatures"] = ["type": "json", "default": "pdfExport"]
            flags["introOfferMessage"] = ["type": "boolean", "default": true]
            flags.removeValue(forKey: "showIntroFreeSubscriptionBanner")
        }
        let snapshot = try Self.snapshot(document)
        #expect(snapshot.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(snapshot.legalLinks == SymiSafeDefaults.legalLinks, "an http link is refused")
        #expect(snapshot.subscriptionProductIds == SymiSafeDefaults.subscriptionProductIds)
        #expect(snapshot.premiumFeatures == SymiSafeDefaults.premiumFeatures)
        #expect(snapshot.introOfferMessage == SymiSafeDefaults.introOfferMessage)
        #expect(snapshot.showIntroFreeSubscriptionBanner == SymiSafeDefaults.showIntroFreeSubscriptionBanner)
    }

    @Test(arguments: [(JSONValue.integer(7), 7), (.integer(0), 0), (.integer(-4), 0), (.integer(365), 60), (.integer(.max), 60)])
    func billingRetryAccessDaysIsClampedToApplesRetryPeriod(value: JSONValue, expected: Int) throws {
        let document = try Envelopes.modified(try Envelopes.production()) { flags in
            flags["billingRetryAccessDays"] = ["type": "integer", "default": value]
        }
        #expect(try Self.snapshot(document).billingRetryAccessDays == expected)
    }

    /// The snapshot clamps with `SymiFlags.BillingRetryAccessDays`, the definition `flagctl lint` warns against: at
    /// and beyond both ends of its range the app uses what the lint says it would.
    @Test func billingRetryAccessDaysFollowsTheSharedRange() throws {
        let range = SymiFlags.BillingRetryAccessDays.range
        for days in [range.lowerBound - 1, range.lowerBound, range.upperBound, range.upperBound + 1] {
            let document = try Envelopes.modified(try Envelopes.production()) { flags in
                flags["billingRetryAccessDays"] = ["type": "integer", "default": .integer(Int64(days))]
            }
            #expect(try Self.snapshot(document).billingRetryAccessDays == SymiFlags.BillingRetryAccessDays.clamped(Int64(days)),
                    "\(days)")
            #expect(try Self.snapshot(document).billingRetryAccessDays == min(max(days, range.lowerBound), range.upperBound))
        }
    }

    @Test func billingRetryAccessDaysMissingOrMistypedIsTheSafeDefault() throws {
        let missing = try Envelopes.modified(try Envelopes.production()) { flags in flags["billingRetryAccessDays"] = nil }
        #expect(try Self.snapshot(missing).billingRetryAccessDays == SymiSafeDefaults.billingRetryAccessDays)
        let text = try Envelopes.modified(try Envelopes.production()) { flags in
            flags["billingRetryAccessDays"] = ["type": "string", "default": "7"]
        }
        #expect(try Self.snapshot(text).billingRetryAccessDays == SymiSafeDefaults.billingRetryAccessDays)
        #expect(FlagSnapshot(envelope: nil, source: .safeDefaults, context: EvaluationContext()).billingRetryAccessDays == 3)
    }

    @Test func evaluatedForAnotherContextKeepsSourceAndDocument() throws {
        let snapshot = try Self.snapshot(try Envelopes.production())
        let tester = snapshot.evaluated(for: EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000002"))
        #expect(tester.premiumFeaturesLocked, "internal testers see the gate")
        #expect(tester.source == snapshot.source && tester.envelope == snapshot.envelope)
        #expect(!snapshot.premiumFeaturesLocked)
    }
}
