import Foundation
import Testing
@testable import SymiPlus

/// The compiled-in system messages: both languages, calm, no prices, no free promises.
@Suite struct SymiPlusMessagesTests {
    static let all: [SymiPlusMessages.Text] = [
        SymiPlusMessages.loading, SymiPlusMessages.productsUnavailable, SymiPlusMessages.pending, SymiPlusMessages.purchaseFailed,
        SymiPlusMessages.unverified, SymiPlusMessages.restoreFailed, SymiPlusMessages.nothingToRestore, SymiPlusMessages.subscribed,
        SymiPlusMessages.retry, SymiPlusMessages.privacyPolicy, SymiPlusMessages.termsOfUse, SymiPlusMessages.active,
        SymiPlusMessages.manageSubscription, SymiPlusMessages.redeemCode, SymiPlusMessages.requestRefund, SymiPlusMessages.checkPayment,
        SymiPlusMessages.renewsOn, SymiPlusMessages.endsOn, SymiPlusMessages.activeUntil, SymiPlusMessages.switchesOn,
        SymiPlusMessages.switchesOnUnnamed, SymiPlusMessages.switchTo, SymiPlusMessages.billingIssueActive, SymiPlusMessages.billingIssueEnded,
    ]

    @Test func everyMessageHasBothLanguages() {
        for text in Self.all {
            #expect(!text.german.isEmpty && !text.english.isEmpty)
            #expect(text.german != text.english, "\(text.english)")
            #expect(text(.german) == text.german && text(.english) == text.english)
        }
    }

    @Test func noPricesNoPromisesNoUrgency() {
        for text in Self.all.flatMap({ [$0.german, $0.english] }) {
            let lower = text.lowercased()
            for word in ["€", "$", "kostenlos", "gratis", "free", "jetzt", "!"] {
                #expect(!lower.contains(word), "\(text) contains \(word)")
            }
        }
    }

    @Test func failuresMapToMessagesAndCancelToNone() {
        #expect(SymiPlusMessages.message(for: StoreError(.cancelled, cause: "")) == nil)
        #expect(SymiPlusMessages.message(for: StoreError(.syncFailed, cause: "")) == SymiPlusMessages.restoreFailed)
        #expect(SymiPlusMessages.message(for: StoreError(.productsUnavailable, cause: "")) == SymiPlusMessages.productsUnavailable)
        for kind in [StoreError.Kind.purchaseFailed, .unknownProduct, .entitlementsUnavailable] {
            #expect(SymiPlusMessages.message(for: StoreError(kind, cause: "")) == SymiPlusMessages.purchaseFailed)
        }
    }

    @Test func placeholdersAreFilledInEitherLanguage() {
        #expect(SymiPlusMessages.fill(SymiPlusMessages.switchesOn, .german, ["date": "1. März 2027", "name": "Symi Plus jährlich"])
                == "Aktiv. Wechselt am 1. März 2027 zu Symi Plus jährlich.")
        #expect(SymiPlusMessages.fill(SymiPlusMessages.renewsOn, .english, ["date": "March 1, 2027"]) == "Active. Renews on March 1, 2027.")
        #expect(SymiPlusMessages.fill(SymiPlusMessages.renewsOn, .english, [:]).contains("{date}"), "nothing invented for a missing value")
    }

    @Test func datesFollowTheInstallsLocaleOnlyWhenItSpeaksTheTextsLanguage() {
        let utc = TimeZone(identifier: "UTC") ?? .current
        #expect(SymiPlusMessages.date(Fixtures.now, .german, localeIdentifier: "de_DE", timeZone: utc) == "15. Januar 2027")
        #expect(SymiPlusMessages.date(Fixtures.now, .english, localeIdentifier: "en_GB", timeZone: utc) == "15 January 2027")
        #expect(SymiPlusMessages.date(Fixtures.now, .english, localeIdentifier: "en_US", timeZone: utc) == "January 15, 2027")
        #expect(SymiPlusMessages.date(Fixtures.now, .german, localeIdentifier: "fr_FR", timeZone: utc) == "15. Januar 2027",
                "German text, German date")
        #expect(SymiPlusMessages.date(Fixtures.now, .german, localeIdentifier: nil, timeZone: utc) == "15. Januar 2027")
        #expect(SymiPlusMessages.date(Fixtures.now, .german, localeIdentifier: "de_DE", timeZone: TimeZone(identifier: "Pacific/Kiritimati") ?? utc)
                == "15. Januar 2027")
    }

    @Test func theBillingNoticesAreCalm() {
        for text in [SymiPlusMessages.billingIssueActive, SymiPlusMessages.billingIssueEnded] {
            for language in SymiPlusLanguage.allCases {
                let words = text(language)
                #expect(!words.contains("!"), "no urgency")
                #expect(words.contains(language == .german ? "Abo verwalten" : "Manage subscription"), "one way to fix it, named")
            }
        }
    }
}
