import Testing
@testable import FlagStore

/// The status graph of `docs/governance.md` (the schema's trigger is checked against it in SchemaGovernanceTests).
@Suite struct ChangeStatusTests {
    @Test func theDesignedTransitions() {
        #expect(ChangeStatus.pending.next == [.scheduled, .approved, .rejected, .expired, .stale, .cancelled])
        #expect(ChangeStatus.scheduled.next == [.applied, .conflicted, .failed, .cancelled])
        #expect(ChangeStatus.approved.next == [.applied, .conflicted, .failed])
        #expect(ChangeStatus.applicable == [.scheduled, .approved])
        #expect(ChangeStatus.cancellable == [.pending, .scheduled])
        #expect(ChangeStatus.allCases.filter { !$0.isFinal } == [.pending, .scheduled, .approved])
    }

    @Test func sqlListsAreSortedQuotedWords() {
        #expect(ChangeStatus.sqlList([.approved, .scheduled]) == "'scheduled', 'approved'")
        #expect(ChangeKind.allCases.map(\.rawValue) == ["flags", "document", "rollback"])
    }
}
