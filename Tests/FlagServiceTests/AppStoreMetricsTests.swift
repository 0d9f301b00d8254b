import AppStoreNotifications
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

    /// A stored notification also counts its outcomes by metric and product; one that counts none adds no line.
    @Test func outcomesByMetricAndProduct() {
        let metrics = AppStoreMetrics()
        var start = NotificationRecord(notificationUUID: "a", notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY",
                                       signedDate: 1, receivedAt: 1, environment: "Production")
        start.productID = "symi.plus.monthly"
        start.offerType = 1
        start.offerDiscountType = "FREE_TRIAL"
        metrics.recordStored(start)
        var refund = NotificationRecord(notificationUUID: "b", notificationType: "REFUND", signedDate: 2, receivedAt: 2,
                                        environment: "Production")
        refund.productID = "symi.plus.yearly"
        metrics.recordStored(refund)
        metrics.recordStored(NotificationRecord(notificationUUID: "c", notificationType: "CONSUMPTION_REQUEST", signedDate: 3,
                                                receivedAt: 3, environment: "Production"))
        let lines = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("flagserver_appstore_outcomes_total") }
        #expect(lines == [
            "flagserver_appstore_outcomes_total{metric=\"freeTrialStarts\",product=\"symi.plus.monthly\"} 1",
            "flagserver_appstore_outcomes_total{metric=\"initialBuys\",product=\"symi.plus.monthly\"} 1",
            "flagserver_appstore_outcomes_total{metric=\"introStarts\",product=\"symi.plus.monthly\"} 1",
            "flagserver_appstore_outcomes_total{metric=\"refunds\",product=\"symi.plus.yearly\"} 1",
            "flagserver_appstore_outcomes_total{metric=\"started\",product=\"symi.plus.monthly\"} 1",
        ])
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
