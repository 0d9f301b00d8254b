import FlagKit
import Testing
@testable import FlagStore

/// A policy record says whether it is the default.
@Suite struct PolicyRecordTests {
    @Test func aRecordWithoutAnUpdateIsTheDefault() {
        #expect(PolicyRecord(environment: "p", policy: .default, updatedAtMilliseconds: nil, updatedBy: nil).isDefault)
        #expect(!PolicyRecord(environment: "p", policy: .default, updatedAtMilliseconds: 1, updatedBy: "a").isDefault)
    }
}
