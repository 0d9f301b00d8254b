import Foundation
import Testing
import FlagKit

/// The generator behind the impact samples: its reference outputs and the install ids it makes.
@Suite struct SplitMix64Tests {
    @Test func splitMixMatchesItsReferenceSequence() {
        // First outputs for seed 1234567, computed independently (Python) from Vigna's reference splitmix64.c.
        var generator = SplitMix64(seed: 1_234_567)
        #expect(generator.next() == 6_457_827_717_110_365_317)
        #expect(generator.next() == 3_203_168_211_198_807_973)
    }

    @Test func installIdsAreVersion4UUIDs() {
        var generator = SplitMix64(seed: 7)
        let ids = (0..<200).map { _ in generator.nextInstallId() }
        #expect(Set(ids).count == 200)
        for id in ids {
            let uuid = UUID(uuidString: id)
            #expect(uuid?.uuidString == id)
            #expect(Array(id)[14] == "4")
            #expect("89AB".contains(Array(id)[19]))
        }
    }
}
