import FlagService
import FlagServiceTestSupport
import Testing

/// "Did you mean": edit distance and the nearest keys.
@Suite struct KeySuggestionsTests {
    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        func distance(_ a: String, _ b: String) -> Int {
            KeySuggestions.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
        }
        #expect(distance("", "") == 0)
        #expect(distance("abc", "") == 3)
        #expect(distance("", "ab") == 2)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("premiumFeaturesLokced", "premiumFeaturesLocked") == 2)
        #expect(distance("flag", "Flag") == 1)
        #expect(distance("größe", "grösse") == 2)
    }

    @Test func closestKeysAreNearestFirstAndFarOnesAreLeftOut() {
        let keys = ["premiumFeaturesLocked", "monetizationEnabled", "introOfferMessage", "premiumFeatureLocked"]
        #expect(KeySuggestions.closest(to: "premiumFeaturesLokced", in: keys) == ["premiumFeaturesLocked", "premiumFeatureLocked"])
        #expect(KeySuggestions.closest(to: "monetisationEnabled", in: keys) == ["monetizationEnabled"])
        #expect(KeySuggestions.closest(to: "somethingElse", in: keys).isEmpty)
        #expect(KeySuggestions.closest(to: "ab", in: ["ab", "ac", "ad", "ae", "zz"], limit: 2) == ["ab", "ac"])
    }
}
