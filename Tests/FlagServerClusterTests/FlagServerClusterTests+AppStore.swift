import AppStoreNotifications
import AppStoreTestSupport
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing

/// Two nodes on one PostgreSQL database receiving the same notification (Apple may deliver it to either, and again):
/// stored once, both answer 200.
extension FlagServerClusterTests {
    @Test func twoNodesReceivingTheSameNotificationStoreItOnce() async throws {
        let ca = try AppStoreTestCA()
        let rootDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: rootDirectory) }
        try ca.writeRoot(to: rootDirectory + "/root.pem")
        let cluster = try await Cluster(nodes: 2, options: [
            "--appstore-root-certificate", rootDirectory + "/root.pem", "--appstore-bundle-id", "app.symi.journal",
            "--appstore-app-apple-id", "6450000001",
        ])
        defer { cluster.finish() }
        let notification = AppStoreTestNotification()
        let body = try notification.body(AppStoreTestSigner(ca: ca))
        // At the same time on both nodes, then once more on each.
        async let first = RawHTTP.request(port: cluster.nodes[0].port, method: "POST", path: "/v1/appstore/notifications",
                                          headers: [("Content-Type", "application/json")], body: body)
        async let second = RawHTTP.request(port: cluster.nodes[1].port, method: "POST", path: "/v1/appstore/notifications",
                                           headers: [("Content-Type", "application/json")], body: body)
        let answers = try await [first, second]
        #expect(answers.map(\.status) == [200, 200], "\(answers.map(\.text))")
        let stored = try answers.map { try $0.json()["stored"] }
        #expect(stored.filter { $0 == .bool(true) }.count == 1 && stored.filter { $0 == .bool(false) }.count == 1, "\(stored)")
        for node in 0..<2 {
            let again = try await RawHTTP.request(port: cluster.nodes[node].port, method: "POST", path: "/v1/appstore/notifications",
                                                  headers: [("Content-Type", "application/json")], body: body)
            #expect(try again.status == 200 && again.json()["stored"] == .bool(false))
        }
        let store = try FlagStore.open(location: cluster.uri)
        defer { store.close() }
        let records = try store.notifications(signedFrom: 0, to: Int64.max)
        #expect(records.map(\.notificationUUID) == [notification.notificationUUID])
        // Both nodes hashed the subscription with the one shared key.
        let list = try await cluster.request(1, "GET", "/v1/appstore/notifications?from=2026-11-01&to=2027-01-01", token: cluster.token)
        #expect(try list.json()["notifications"]?.arrayValue?.first?["subscription"] == .string(records.first?.subscription ?? "-"))
    }
}
