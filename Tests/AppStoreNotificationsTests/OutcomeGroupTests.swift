import AppStoreNotifications
import Testing

@Suite struct OutcomeGroupTests {
    @Test func aGroupKeepsItsProductOfferAndCounts() {
        var totals = OutcomeCounts()
        totals[.started] = 1
        let group = OutcomeGroup(product: "monthly", offerType: 2, offerIdentifier: "winback", series: [totals], totals: totals)
        #expect(group.product == "monthly" && group.offerType == 2 && group.offerIdentifier == "winback")
        #expect(group.series == [totals] && group.totals[.started] == 1)
        #expect(group != OutcomeGroup(product: "monthly", offerType: 2, offerIdentifier: nil, series: [totals], totals: totals))
    }

    /// Groups sort by product in byte order ("Z" before "a"), then no offer first, then offer type and identifier.
    @Test func groupsSortByProductThenOffer() {
        func record(_ product: String, _ offerType: Int?, _ identifier: String?) -> NotificationRecord {
            var record = NotificationRecord(notificationUUID: "\(product)\(offerType ?? 0)\(identifier ?? "")", notificationType: "TEST",
                                            signedDate: 0, receivedAt: 0, environment: "Sandbox")
            record.productID = product
            record.offerType = offerType
            record.offerIdentifier = identifier
            return record
        }
        let history = [record("a", 2, "b"), record("a", 2, "B"), record("a", nil, nil), record("Z", 3, nil), record("a", 1, nil),
                       record("a", 2, nil)].sorted { $0.notificationUUID < $1.notificationUUID }
        let report = OutcomeReport.compute(history: history, from: 0, to: 1, bucket: .hour, product: nil)
        #expect(report.groups.map { "\($0.product)|\($0.offerType.map(String.init) ?? "-")|\($0.offerIdentifier ?? "-")" }
            == ["Z|3|-", "a|-|-", "a|1|-", "a|2|-", "a|2|B", "a|2|b"])
        #expect(report.groups.allSatisfy { $0.totals[.tests] == 1 })
    }
}
