import Testing
@testable import FlagStore

/// The audit query's defaults: no filter, the newest 100 lines.
@Suite struct AuditQueryTests {
    @Test func defaultsToTheNewestHundredWithoutFilters() {
        let query = AuditQuery()
        #expect(query.limit == 100 && query.before == nil)
        #expect(query.environment == nil && query.actor == nil && query.action == nil && query.outcome == nil)
        #expect(query.sinceMilliseconds == nil && query.untilMilliseconds == nil)
        #expect(AuditQuery.limitRange == 1...1000)
    }
}
