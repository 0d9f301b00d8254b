import Testing
@testable import FlagStore

/// The audit input type: defaults and the cutting of long text.
@Suite struct AuditRecordTests {
    @Test func defaultsToOkNowAndNoDetail() {
        let record = AuditRecord(actor: "ops", action: "token.create")
        #expect(record.outcome == .ok && record.atMilliseconds == nil && record.detail.isEmpty)
        #expect(record.status == nil && record.reason == nil && record.client == nil && record.target == nil)
    }

    @Test func truncationKeepsWholeCharacters() {
        #expect(AuditRecord.truncated("abc", to: 3) == "abc")
        #expect(AuditRecord.truncated("abcd", to: 3) == "abc")
        #expect(AuditRecord.truncated("aé", to: 2) == "a", "é is two bytes and does not fit")
        #expect(AuditRecord.truncated("👍🏽x", to: 7) == "", "a character is never split, even a multi-scalar one")
        #expect(AuditRecord.truncated("", to: 0) == "")
    }

    @Test func outcomesAreTheThreeWords() {
        #expect(AuditOutcome.allCases.map(\.rawValue) == ["ok", "refused", "failed"])
    }
}
