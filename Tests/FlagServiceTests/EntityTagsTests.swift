import FlagService
import Testing

/// RFC 9110 §13.1.1/§13.1.2 precondition evaluation.
@Suite struct EntityTagsTests {
    let current = "\"7-abcdef0123456789\""

    @Test func ifNoneMatchUsesWeakComparison() {
        #expect(EntityTags.noneMatchHits([current], current: current))
        #expect(EntityTags.noneMatchHits(["W/\(current)"], current: current))
        #expect(EntityTags.noneMatchHits(["\"x\", W/\"y\",\(current)"], current: current))
        #expect(EntityTags.noneMatchHits(["\"x\"", current], current: current), "several fields are one list")
        #expect(EntityTags.noneMatchHits(["*"], current: current))
        #expect(EntityTags.noneMatchHits(["\"a,b\", \(current)"], current: current), "a comma inside a tag does not split")
        #expect(!EntityTags.noneMatchHits(["\"7-abcdef\""], current: current))
        #expect(!EntityTags.noneMatchHits([String(current.dropFirst().dropLast())], current: current), "unquoted is malformed")
        #expect(!EntityTags.noneMatchHits(["\"unterminated"], current: current))
        #expect(!EntityTags.noneMatchHits([], current: current))
    }

    @Test func ifMatchUsesStrongComparison() {
        #expect(EntityTags.matchHits([current], current: current))
        #expect(!EntityTags.matchHits(["W/\(current)"], current: current))
        #expect(EntityTags.matchHits(["\"old\", \(current)"], current: current))
        #expect(EntityTags.matchHits(["*"], current: current))
        #expect(!EntityTags.matchHits(["*"], current: nil), "* needs a current representation")
        #expect(!EntityTags.matchHits([current], current: nil))
        #expect(!EntityTags.matchHits(["* , \"x\""], current: current), "* cannot be part of a list")
    }
}
