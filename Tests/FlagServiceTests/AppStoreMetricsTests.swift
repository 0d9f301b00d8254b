import Testing
@testable import FlagService

/// The receiver's counters as /metrics shows them.
@Suite struct AppStoreMetricsTests {
    @Test func countsByLabelsInAStableOrderWithValuesEscaped() {
        let metrics = AppStoreMetrics()
        metrics.recordStored(type: "SUBSCRIBED", subtype: "RESUBSCRIBE")
        metrics.recordStored(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        metrics.recordStored(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        metrics.recordStored(type: "TEST", subtype: nil)
        metrics.recordStored(type: "ODD\"\\", subtype: "a\nb")
        metrics.recordDuplicate()
        metrics.recordRefusal(reason: "invalid_signature")
        let text = metrics.exposition()
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == [
            "flagserver_appstore_notifications_total{type=\"ODD\\\"\\\\\",subtype=\"a\\nb\"} 1",
            "flagserver_appstore_notifications_total{type=\"SUBSCRIBED\",subtype=\"INITIAL_BUY\"} 2",
            "flagserver_appstore_notifications_total{type=\"SUBSCRIBED\",subtype=\"RESUBSCRIBE\"} 1",
            "flagserver_appstore_notifications_total{type=\"TEST\",subtype=\"\"} 1",
            "flagserver_appstore_duplicates_total 1",
            "flagserver_appstore_refusals_total{reason=\"invalid_signature\"} 1",
        ])
        #expect(text.contains("# TYPE flagserver_appstore_refusals_total counter\n"))
    }

    @Test func labelPairsAreBounded() {
        let metrics = AppStoreMetrics()
        for index in 0..<(AppStoreMetrics.labelCapacity + 10) { metrics.recordStored(type: "T\(index)", subtype: nil) }
        let text = metrics.exposition()
        #expect(text.contains("type=\"other\",subtype=\"other\"} 10\n"))
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("flagserver_appstore_notifications_total{") }.count
            == AppStoreMetrics.labelCapacity + 1)
    }
}
