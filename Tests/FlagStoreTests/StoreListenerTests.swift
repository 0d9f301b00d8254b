import Foundation
import PostgresTestSupport
import Testing
@testable import FlagStore

/// What a node's listener hears from the others: versions, changes, and that it may have missed some.
@Suite struct StoreListenerTests {
    @Test func itHearsVersionsAndChangesOfOtherConnectionsAndSaysWhenItListenedAnew() throws {
        let cluster = try PostgresTestCluster.shared()
        let uri = try cluster.createDatabase()
        let node = try FlagStore.open(path: uri)
        defer { node.close() }
        let listener = try node.makeListener()
        defer { listener.close() }
        #expect(try listener.wait(timeout: .milliseconds(10)) == StoreListener.Heard(reconnected: true), "the first wait LISTENs")
        #expect(try listener.wait(timeout: .milliseconds(10)) == StoreListener.Heard())

        let other = try FlagStore.open(path: uri)
        defer { other.close() }
        _ = try other.publish(environment: "staging", document: document("a"), author: "other")
        #expect(try listener.wait(timeout: .seconds(10)) == StoreListener.Heard(versions: ["staging"]))
        let change = try other.createChange(scheduledChange(applyAt: currentMilliseconds() + 60_000))
        #expect(try listener.wait(timeout: .seconds(10)) == StoreListener.Heard(changes: true))
        _ = try other.cancelChange(id: change.id, actor: "other")
        #expect(try listener.wait(timeout: .seconds(10)) == StoreListener.Heard(changes: true))

        // Its session ends (a restart, a failover): the next wait connects, LISTENs again and says so.
        let name = try #require(uri.split(separator: "?").first?.split(separator: "/").last)
        try cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND application_name = 'flagserver'"
                         + " AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'")
        // The server ends the session asynchronously (its FATAL message, then the close): a wait or two notice.
        #expect(poll(timeout: .seconds(10)) {
            do {
                _ = try listener.wait(timeout: .milliseconds(100))
                return false
            } catch {
                return true
            }
        })
        #expect(try listener.wait(timeout: .milliseconds(10)).reconnected)
    }
}
