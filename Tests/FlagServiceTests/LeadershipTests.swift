import FlagServiceTestSupport
import FlagStore
import Testing
@testable import FlagService

/// The one flag "this node runs the jobs" (`Leadership`), which the scheduler's pass and the webhook dispatcher read.
@Suite struct LeadershipTests {
    @Test func oneProcessAlwaysLeadsASharedStoreWaitsForTheLease() {
        let single = Leadership(.singleProcess), shared = Leadership(.shared)
        #expect(single.isLeading && single.isPermanent)
        #expect(!shared.isLeading && !shared.isPermanent)
        #expect(shared.update(true) && shared.isLeading)
        #expect(!shared.update(true), "unchanged")
        #expect(shared.update(false) && !shared.isLeading)
    }
}
