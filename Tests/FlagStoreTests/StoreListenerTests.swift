import FlagKit
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagStore

/// What a node's listener hears from the others: versions, changes, and that it may have missed some.
@Suite struct StoreListenerTests {
    /// `newestVersions()` (what the catch-up compares its snapshots with): each environment's newest number and content
    /// hash, 0 and "" for one without versions; a rollback's new version carries the old content's hash.
    @Test(arguments: StoreEngine.allCases) func newestVersionsNameEachEnvironmentsNewestNumberAndHash(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        defer { store.close() }
        try store.createEnvironment(name: "empty", actor: "ops")
        _ = try store.publish(environment: "production", document: document("a"), author: "alice")
        _ = try store.publish(environment: "production", document: document("b"), author: "alice")
        _ = try store.publish(environment: "staging", document: document("c"), author: "alice")
        var newest = try store.newestVersions()
        #expect(newest.mapValues(\.number) == ["production": 2, "staging": 1, "empty": 0])
        #expect(newest.mapValues(\.contentHash) == ["production": SHA256.hexDigest(document("b")),
                                                    "staging": SHA256.hexDigest(document("c")), "empty": ""])
        _ = try store.rollback(environment: "production", to: 1, author: "bob")
        newest = try store.newestVersions()
        #expect(newest["production"]?.number == 3 && newest["production"]?.contentHash == SHA256.hexDigest(document("a")))
        #expect(try store.latestVersions().mapValues(\.contentHash) == newest.filter { $0.value.number > 0 }.mapValues(\.contentHash))
    }

    /// The node's own writer's commits (installed before they were answered) do not wake its listener: a wait with only
    /// those lasts its whole timeout and hears nothing; another connection's commit during it ends it with that one.
    /// Otherwise every commit of a node flipping flat out would wake its own sync thread for a catch-up query.
    @Test func itSkipsTheNotificationsOfItsOwnStoresWrites() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let node = try FlagStore.open(location: uri)
        defer { node.close() }
        let listener = try node.makeListener()
        defer { listener.close() }
        #expect(try listener.wait(timeout: .milliseconds(10)).reconnected)
        _ = try node.publish(environment: "staging", document: document("own"), author: "node")
        _ = try node.createChange(scheduledChange(applyAt: currentMilliseconds() + 60_000))
        let start = ContinuousClock.now
        #expect(try listener.wait(timeout: .milliseconds(300)) == StoreListener.Heard())
        #expect(ContinuousClock.now - start >= .milliseconds(290), "the own notifications ended the wait early")

        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        _ = try node.publish(environment: "staging", document: document("own again"), author: "node")
        _ = try other.publish(environment: "production", document: document("theirs"), author: "other")
        #expect(try listener.wait(timeout: .seconds(10)) == StoreListener.Heard(published: true))

        // After the writer's session is replaced (a lost connection), its new server process is still its own.
        let name = try #require(uri.split(separator: "?").first?.split(separator: "/").last)
        try PostgresTestCluster.shared().psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'"
                                              + " AND application_name = 'flagserver' AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'")
        _ = try? node.publish(environment: "staging", document: document("after"), author: "node")  // may find its session lost
        _ = try node.publish(environment: "staging", document: document("after, again"), author: "node")
        #expect(try listener.wait(timeout: .milliseconds(300)) == StoreListener.Heard())
    }

    @Test func itHearsVersionsAndChangesOfOtherConnectionsAndSaysWhenItListenedAnew() throws {
        let cluster = try PostgresTestCluster.shared()
        let uri = try cluster.createDatabase()
        let node = try FlagStore.open(location: uri)
        defer { node.close() }
        let listener = try node.makeListener()
        defer { listener.close() }
        #expect(try listener.wait(timeout: .milliseconds(10)) == StoreListener.Heard(reconnected: true), "the first wait LISTENs")
        #expect(try listener.wait(timeout: .milliseconds(10)) == StoreListener.Heard())

        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        _ = try other.publish(environment: "staging", document: document("a"), author: "other")
        #expect(try listener.wait(timeout: .seconds(10)) == StoreListener.Heard(published: true))
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
