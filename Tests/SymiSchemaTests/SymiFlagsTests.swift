import FlagKit
import SymiSchema
import Testing

/// Symi's own documents under `flags/` as the brief asks for them today, and `SymiFlags`: the one definition of
/// `billingRetryAccessDays`' range, which the app's `SymiFlagValues` clamps to and `flagctl lint` warns against (their
/// own tests check each side against it).
@Suite struct SymiFlagsTests {
    static let files = ["flags/production.json", "flags/staging.json"]

    @Test(arguments: files)
    func validates(file: String) throws {
        #expect(FlagDocument.problems(in: try Documents.bytes(file)).isEmpty)
    }

    @Test(arguments: files)
    func todaysValuesLockNothingForAnOrdinaryInstall(file: String) throws {
        let document = try FlagDocument.decode(Documents.bytes(file))
        let user = EvaluationContext(installId: "5A1B0000-0000-4000-8000-00000000BEEF", appVersion: "2.4.0", osVersion: "17.4",
                                     platform: "ios", locale: "de-DE", country: "DE", channel: "appstore")
        #expect(document.evaluate("monetizationEnabled", context: user).value == true)
        #expect(document.evaluate("premiumFeaturesLocked", context: user).value == false)
        #expect(document.evaluate("showIntroFreeSubscriptionBanner", context: user).value == true)
        #expect(document.evaluate("subscriptionPriceIncreaseMessagingEnabled", context: user).value == false)
        #expect(document.evaluate("introOfferMessage", context: user).value == "Symi ist aktuell für kurze Zeit kostenlos.")
        #expect(document.flags.values.allSatisfy { !($0.description ?? "").isEmpty }, "every flag explains itself")
    }

    @Test func englishLocalesGetEnglishCopy() throws {
        let document = try FlagDocument.decode(Documents.bytes("flags/production.json"))
        let result = document.evaluate("introOfferMessage", context: EvaluationContext(installId: "x", locale: "en_US"))
        #expect(result.value == "Symi is free for a limited time.")
        #expect(result.reason == .targetingMatch)
    }

    @Test func internalTestersSeeTheGate() throws {
        let document = try FlagDocument.decode(Documents.bytes("flags/production.json"))
        let tester = EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000001")
        #expect(document.evaluate("premiumFeaturesLocked", context: tester).value == true)
    }

    @Test func billingRetryAccessDaysRangeIsApplesRetryPeriod() throws {
        #expect(SymiFlags.BillingRetryAccessDays.key == "billingRetryAccessDays")
        #expect(SymiFlags.BillingRetryAccessDays.range == 0...60)
        for file in Self.files {
            let document = try FlagDocument.decode(Documents.bytes(file))
            let days = try #require(document.flags[SymiFlags.BillingRetryAccessDays.key]?.defaultValue.integerValue, "\(file)")
            #expect(SymiFlags.BillingRetryAccessDays.range.contains(Int(days)), "\(file)")
        }
    }

    @Test(arguments: [(Int64.min, 0), (-1, 0), (0, 0), (3, 3), (60, 60), (61, 60), (Int64.max, 60)])
    func billingRetryAccessDaysOutsideAreClampedToTheNearestBound(days: Int64, used: Int) {
        #expect(SymiFlags.BillingRetryAccessDays.clamped(days) == used)
    }
}
