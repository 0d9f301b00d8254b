import Testing
@testable import SymiPlus

/// The language follows the flags' `english` cohort: `en*` is English, everything else German.
@Suite struct SymiPlusLanguageTests {
    @Test func englishOnlyForEnLocales() {
        for identifier in ["en", "en_US", "en-GB"] { #expect(SymiPlusLanguage(localeIdentifier: identifier) == .english) }
        for identifier in ["de_DE", "de-AT", "fr_FR", "", nil] as [String?] {
            #expect(SymiPlusLanguage(localeIdentifier: identifier) == .german)
        }
    }
}
