import Testing
@testable import SymiPlus

/// The compiled-in system messages: both languages, calm, no prices, no free promises.
@Suite struct SymiPlusMessagesTests {
    static let all: [SymiPlusMessages.Text] = [
        SymiPlusMessages.loading, SymiPlusMessages.productsUnavailable, SymiPlusMessages.pending, SymiPlusMessages.purchaseFailed,
        SymiPlusMessages.unverified, SymiPlusMessages.restoreFailed, SymiPlusMessages.nothingToRestore, SymiPlusMessages.subscribed,
        SymiPlusMessages.retry, SymiPlusMessages.privacyPolicy, SymiPlusMessages.termsOfUse, SymiPlusMessages.active,
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
}
