import AppStoreNotifications
import Testing

@Suite struct OutcomeCountsTests {
    @Test func eachMetricHasItsOwnCountStartingAtZero() {
        var counts = OutcomeCounts()
        #expect(counts.isZero && OutcomeMetric.allCases.allSatisfy { counts[$0] == 0 })
        counts[.started] += 2
        counts[.active] = 7
        #expect(counts[.started] == 2 && counts[.active] == 7 && counts[.initialBuys] == 0 && !counts.isZero)
        #expect(counts.all.map(\.metric) == OutcomeMetric.allCases)
        #expect(counts.all.filter { $0.count != 0 }.map(\.metric) == [.started, .active])
        var other = OutcomeCounts()
        other[.active] = 7
        #expect(other != counts)
        other[.started] = 2
        #expect(other == counts)
    }
}
