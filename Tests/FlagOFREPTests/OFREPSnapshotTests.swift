import FlagKit
import Testing
@testable import FlagOFREP

@Suite struct OFREPSnapshotTests {
    @Test func keepsVersionEnvironmentAndContentHash() throws {
        let snapshot = try Fixtures.allTypes()
        #expect(snapshot.version == 12)
        #expect(snapshot.environment == "test")
        #expect(snapshot.contentHash == snapshot.document.contentHash)
        #expect(snapshot.contentHash.count == 64)
    }

    @Test func flagKeysAreSortedByUTF8() throws {
        let snapshot = try Fixtures.allTypes()
        #expect(snapshot.sortedFlagKeys == snapshot.document.flags.keys.sorted(by: JSONValue.utf8Order))
        #expect(snapshot.sortedFlagKeys.first == "disabledFlag")
    }
}
