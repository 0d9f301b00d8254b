import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// The StoreKit check's rules, in process, on the repository's files and variations of them.
@Suite struct StoreKitCheckTests {
    static func storeKitText() throws -> String {
        String(decoding: try TestSupport.bytes("storekit/Symi.storekit"), as: UTF8.self)
    }

    /// The repository's StoreKit file with `replacements` applied to its text.
    static func storeKit(_ replacements: [(String, String)] = []) throws -> StoreKitConfiguration {
        var text = try storeKitText()
        for (old, new) in replacements {
            #expect(text.contains(old), "fixture: \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try StoreKitConfiguration.parse(Array(text.utf8))
    }

    static func flags(_ name: String) throws -> FlagDocument { try FlagDocument.decode(try TestSupport.bytes("flags/\(name).json")) }

    func findings(_ configuration: StoreKitConfiguration, _ flags: String = "staging") throws -> [StoreKitFinding] {
        StoreKitCheck.check(configuration, file: "Symi.storekit")
            + StoreKitCheck.check(try Self.flags(flags), file: "\(flags).json", against: configuration, storeKitFile: "Symi.storekit")
    }

    @Test(arguments: ["production", "staging"])
    func repositoryFilesAreClean(flags: String) throws {
        #expect(try findings(try Self.storeKit(), flags) == [])
    }

    @Test func aProductTheFlagsOfferIsMissing() throws {
        let configuration = try Self.storeKit([(#""productID" : "symi_plus_yearly""#, #""productID" : "symi_plus_yearly_v2""#)])
        let missingInXcode = #"Symi.storekit: /subscriptionGroups/0/subscriptions: [paid-state-testing] symi_plus_yearly is in the catalogue but not in group "Symi Plus": Xcode cannot test the switch to it"#
        #expect(try findings(configuration, "production").map(\.description) == [missingInXcode],
                "production offers only the monthly product, but the switch to yearly must be testable")
        #expect(try findings(configuration).map(\.description) == [
            missingInXcode,
            #"staging.json: /flags/subscriptionProductIds/default/1: [storekit-product] "symi_plus_yearly" is not a subscription in Symi.storekit"#,
        ])
    }

    @Test func whatXcodeNeedsToTestThePaidStates() throws {
        let noGrace = try Self.storeKit([(#""_billingGracePeriodEnabled" : true"#, #""_billingGracePeriodEnabled" : false"#)])
        #expect(try findings(noGrace, "production").map(\.description) == [
            "Symi.storekit: /settings/_billingGracePeriodEnabled: [paid-state-testing] the billing grace period is off: turn it on (Editor > Enable Billing Grace Period), as App Store Connect will have it",
        ])
        let levels = try Self.storeKit([("\"groupNumber\" : 1,\n          \"internalID\" : \"6A0F2C21\"",
                                         "\"groupNumber\" : 2,\n          \"internalID\" : \"6A0F2C21\"")])
        #expect(try findings(levels, "production").map(\.path) == ["/subscriptionGroups/0/subscriptions/0/groupNumber",
                                                                   "/subscriptionGroups/0/subscriptions/1/groupNumber",
                                                                   "/subscriptionGroups/0/subscriptions/2/groupNumber",
                                                                   "/subscriptionGroups/0/subscriptions/3/groupNumber"])
        var text = try Self.storeKitText()
        let codeOffers = try #require(text.range(of: #""codeOffers" : ["#))
        // The array's own closing bracket, at the subscription's indentation (the eligibility list closes earlier).
        let end = try #require(text.range(of: "\n          ],", range: codeOffers.upperBound..<text.endIndex))
        text.replaceSubrange(codeOffers.lowerBound..<end.upperBound, with: #""codeOffers" : [],"#)
        let noCode = try StoreKitConfiguration.parse(Array(text.utf8))
        #expect(try findings(noCode, "production").map(\.description) == [
            #"Symi.storekit: /subscriptionGroups/0/subscriptions/0/codeOffers: [paid-state-testing] symi_plus_monthly has no offer code: add one to try "Code einlösen" in Xcode"#,
        ])
    }

    @Test func anIdOutsideTheCatalogue() throws {
        let document = try FlagDocument.decode(Array(#"{"flags": {"subscriptionProductIds": {"type": "json", "default": ["symi_plus_monthly"], "rules": [{"cohort": "x", "value": ["symi_plus_lifetime", 7]}, {"value": "symi_plus_monthly"}]}}, "cohorts": {"x": {"channel": {"in": ["debug"]}}}}"#.utf8))
        let found = StoreKitCheck.check(document, file: "f.json", against: try Self.storeKit(), storeKitFile: "s")
        #expect(found.map { "\($0.path) \($0.rule.rawValue)" } == [
            "/flags/subscriptionProductIds/rules/0/value/0 catalog-product",
            "/flags/subscriptionProductIds/rules/0/value/0 storekit-product",
            "/flags/subscriptionProductIds/rules/0/value/1 storekit-product",
            "/flags/subscriptionProductIds/rules/1/value storekit-product",
        ])
    }

    @Test func germanLocalizationsAreRequired() throws {
        let configuration = try Self.storeKit([(#""locale" : "de""#, #""locale" : "fr""#)])
        #expect(try findings(configuration).map(\.description) == [
            #"Symi.storekit: /subscriptionGroups/0/localizations: [german-localization] group "Symi Plus" has no German localization (locale de...) with a display name"#,
            "Symi.storekit: /subscriptionGroups/0/subscriptions/0/localizations: [german-localization] symi_plus_monthly has no German localization (locale de...) with display name and description",
            "Symi.storekit: /subscriptionGroups/0/subscriptions/1/localizations: [german-localization] symi_plus_yearly has no German localization (locale de...) with display name and description",
            "Symi.storekit: /subscriptionGroups/0/subscriptions/2/localizations: [german-localization] symi_plus_monthly_399 has no German localization (locale de...) with display name and description",
            "Symi.storekit: /subscriptionGroups/0/subscriptions/3/localizations: [german-localization] symi_plus_monthly_499 has no German localization (locale de...) with display name and description",
        ])
        // The price test's products share the monthly product's names.
        let emptyName = try Self.storeKit([(#""displayName" : "Symi Plus monatlich""#, #""displayName" : """#)])
        #expect(try findings(emptyName).map(\.path) == ["/subscriptionGroups/0/subscriptions/0/localizations",
                                                        "/subscriptionGroups/0/subscriptions/2/localizations",
                                                        "/subscriptionGroups/0/subscriptions/3/localizations"])
        let regional = try Self.storeKit([(#""locale" : "de""#, #""locale" : "de_DE""#)])
        #expect(try findings(regional) == [])
    }

    @Test func freeCopyWithoutAFreeOffer() throws {
        let configuration = try Self.storeKit([(#""paymentMode" : "free""#, #""paymentMode" : "payAsYouGo""#)])
        let found = try findings(configuration, "production")
        #expect(Set(found.map(\.rule)) == [.freeCopyNeedsFreeOffer])
        #expect(found.first?.description == #"production.json: /flags/introOfferMessage/default: [free-copy-needs-free-offer] promises "kostenlos", but no product offered at /flags/subscriptionProductIds/default has a free introductory offer in Symi.storekit"#)
        #expect(found.map(\.path).contains("/flags/subscriptionScreenCopy/rules/0/value/activateFreeButton"), "English copy too")
        #expect(!found.map(\.path).contains { $0.contains("subscriptionPaidCopy") }, "the paid copy promises nothing free")
    }

    @Test func oneFreeProductPerListIsEnough() throws {
        // Only the yearly product loses its free month: staging still offers the free monthly one next to it.
        var text = try Self.storeKitText()
        let yearly = try #require(text.range(of: #""productID" : "symi_plus_yearly""#))
        let free = try #require(text.range(of: #""paymentMode" : "free""#, options: .backwards, range: text.startIndex..<yearly.lowerBound))
        text.replaceSubrange(free, with: #""paymentMode" : "payUpFront""#)
        let configuration = try StoreKitConfiguration.parse(Array(text.utf8))
        #expect(configuration.subscriptions.map(\.hasFreeIntroductoryOffer) == [true, false, true, true])
        #expect(try findings(configuration) == [])
    }

    @Test func periodAndGroupFollowTheCatalogue() throws {
        let period = try Self.storeKit([(#""recurringSubscriptionPeriod" : "P1Y""#, #""recurringSubscriptionPeriod" : "P6M""#)])
        #expect(try findings(period).map(\.description) == [
            "Symi.storekit: /subscriptionGroups/0/subscriptions/1/recurringSubscriptionPeriod: [catalog-product] symi_plus_yearly renews every P6M, the catalogue says P1Y",
        ])
        let renamed = try Self.storeKit([(#""name" : "Symi Plus""#, #""name" : "Symi Premium""#)])
        #expect(try findings(renamed).map(\.rule) == [.subscriptionGroup, .subscriptionGroup, .subscriptionGroup])
    }
}
