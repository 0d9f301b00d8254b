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

    @Test func boundedCutsEveryTextToItsStoredBound() {
        let long = String(repeating: "x", count: 30_000)
        let record = AuditRecord(actor: long, action: long, environment: long, target: long, outcome: .refused, status: 403,
                                 reason: long, client: long, version: 3, detail: long).bounded()
        #expect(record.actor.utf8.count == 200 && record.action.utf8.count == 200)
        #expect(record.environment?.utf8.count == 200 && record.client?.utf8.count == 200)
        #expect(record.target?.utf8.count == 512 && record.reason?.utf8.count == 2000 && record.detail.utf8.count == 20_000)
        #expect(record.outcome == .refused && record.status == 403 && record.version == 3, "what is not text is kept")
        let short = AuditRecord(actor: "ops", action: "publish", environment: nil, target: "k")
        #expect(short.bounded() == short, "short texts and absent ones are left alone")
    }

    @Test func outcomesAreTheThreeWords() {
        #expect(AuditOutcome.allCases.map(\.rawValue) == ["ok", "refused", "failed"])
    }
}
