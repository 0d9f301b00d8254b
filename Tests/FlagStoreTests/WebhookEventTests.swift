import Foundation
import Testing
@testable import FlagStore

/// Event ids and the list of event types.
@Suite struct WebhookEventTests {
    @Test func idsAreULIDsThatSortByTime() {
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let early = WebhookEvent.makeID(atMilliseconds: 1_772_319_600_000)
        let late = WebhookEvent.makeID(atMilliseconds: 1_772_319_600_001)
        #expect(early.hasPrefix("evt_") && early.count == 30)
        #expect(early.dropFirst(4).allSatisfy(alphabet.contains))
        #expect(early < late)
        #expect(WebhookEvent.makeID(atMilliseconds: 5) != WebhookEvent.makeID(atMilliseconds: 5), "80 random bits")
        // The first ten characters are the time: 0 gives zeros, the largest 48-bit time the largest prefix.
        #expect(WebhookEvent.makeID(atMilliseconds: 0).dropFirst(4).prefix(10) == "0000000000")
        #expect(WebhookEvent.makeID(atMilliseconds: 0xFFFF_FFFF_FFFF).dropFirst(4).prefix(10) == "7ZZZZZZZZZ")
    }

    @Test func theTimeIsEncodedAsInTheULIDSpec() {
        // 1469918176385 ms is "01ARYZ6S41" in the ULID specification's example.
        #expect(WebhookEvent.makeID(atMilliseconds: 1_469_918_176_385).dropFirst(4).prefix(10) == "01ARYZ6S41")
    }

    @Test func theDesignsEventTypes() {
        #expect(WebhookEvent.types.count == 19)
        #expect(WebhookEvent.types.filter { $0.hasPrefix("guard.") }.sorted()
            == ["guard.acted", "guard.added", "guard.closed", "guard.held", "guard.overridden", "guard.removed", "guard.tripped"])
        #expect(WebhookEvent.types.contains("version.published") && WebhookEvent.types.contains("policy.updated"))
        #expect(!WebhookEvent.types.contains("*"))
    }
}
