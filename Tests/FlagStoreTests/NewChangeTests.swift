import FlagKit
import Testing
@testable import FlagStore

/// Where a new change starts.
@Suite struct NewChangeTests {
    @Test func aChangeNeedingApprovalStartsPendingOtherwiseScheduled() {
        #expect(requestedChange().initialStatus == .pending)
        #expect(requestedChange(applyAt: 5).initialStatus == .pending, "approval first, then it waits for its time")
        #expect(scheduledChange().initialStatus == .scheduled)
    }
}
