import Testing
@testable import FlagStore

/// The two listings the API has, as queries.
@Suite struct ChangeQueryTests {
    @Test func schedulesAreChangesWithATimeByTime() {
        let query = ChangeQuery.schedules(environment: "production", statuses: [.scheduled], limit: 20)
        #expect(query.withApplyAtOnly && !query.requestsOnly && query.order == .applyAt)
        #expect(query.statuses == [.scheduled] && query.limit == 20 && query.before == nil)
    }

    @Test func requestsAreChangesThatNeededApprovalNewestFirst() {
        let query = ChangeQuery.requests(environment: "staging", before: 12)
        #expect(query.requestsOnly && !query.withApplyAtOnly && query.order == .newestFirst)
        #expect(query.environment == "staging" && query.statuses == nil && query.limit == 100 && query.before == 12)
        #expect(ChangeQuery.limitRange == 1...1000)
    }
}
