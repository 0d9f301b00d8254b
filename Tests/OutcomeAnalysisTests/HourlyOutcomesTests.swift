import AppStoreNotifications
@testable import OutcomeAnalysis
import Testing

@Suite struct HourlyOutcomesTests {
    @Test func anHourlyReportGivesTheMetricAndBothExposures() {
        let hour: Int64 = 3_600_000
        let base: Int64 = 1_796_083_200_000
        var refund = NotificationRecord(notificationUUID: "r", notificationType: "REFUND", signedDate: base + hour + 5, receivedAt: 0, environment: "Production")
        refund.productID = "p"
        refund.subscription = "s1"
        var start = NotificationRecord(notificationUUID: "s", notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: base + 10, receivedAt: 0, environment: "Production")
        start.productID = "p"
        start.subscription = "s2"
        start.expiresDate = base + 30 * 24 * hour
        let report = OutcomeReport.compute(history: [start, refund], from: base, to: base + 3 * hour, bucket: .hour, product: nil)
        let series = HourlyOutcomes(report: report, metric: .refunds)
        #expect(series == HourlyOutcomes(from: base, counts: [0, 1, 0], started: [1, 0, 0], active: [1, 1, 1]))
        #expect(series?.index(ofHourStarting: base + hour) == 1)
        #expect(series?.index(ofHourStarting: base + 3 * hour) == nil)
        #expect(series?.index(ofHourStarting: base - hour) == nil)
        #expect(series?.index(ofHourStarting: base + 5) == nil)
        #expect(HourlyOutcomes(from: -3_600_000_000, counts: [1], started: [1], active: [1]).index(ofHourStarting: .max) == nil)
        let daily = OutcomeReport.compute(history: [start, refund], from: base, to: base + 3 * hour, bucket: .day, product: nil)
        #expect(HourlyOutcomes(report: daily, metric: .refunds) == nil)
    }

    @Test func seriesOfUnequalLengthsAreCutToTheShortest() {
        let series = HourlyOutcomes(from: 3_600_000 + 7, counts: [1, 2, 3], started: [1, 2], active: [4, 5, 6])
        #expect(series.from == 3_600_000 && series.hours == 2 && series.counts == [1, 2] && series.active == [4, 5])
    }
}
