import Foundation
import Testing
@testable import FlagClient

@Suite struct ValueSourceTests {
    @Test func versionAndDescription() {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ValueSource.server(version: 12, fetchedAt: date).version == 12)
        #expect(ValueSource.cache(version: 3, writtenAt: date).version == 3)
        #expect(ValueSource.safeDefaults.version == nil)
        #expect(ValueSource.server(version: 12, fetchedAt: date).description == "server version 12 fetched 2027-01-15T08:00:00.000Z")
        #expect(ValueSource.cache(version: 3, writtenAt: date).description == "cache version 3 written 2027-01-15T08:00:00.000Z")
        #expect(ValueSource.safeDefaults.description == "compiled-in safe defaults")
    }
}
