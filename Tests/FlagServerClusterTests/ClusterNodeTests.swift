import FlagServiceTestSupport
import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagService

/// A node's round on PostgreSQL (`ClusterNode`), in process.
///
/// `./scripts/test` runs this suite with the cluster tests, in their process (it starts PostgreSQL).
@Suite struct ClusterNodeTests {
    /// A service on a fresh seeded database, syncing every `interval`.
    static func service(interval: Duration, tokenRefresh: Duration) throws -> (FlagService, FlagStore, String) {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path,
                             logger: ServiceLogger(minimumLevel: .off))
        var options = FlagService.Options()
        options.clusterSyncInterval = interval
        options.tokenRefreshInterval = tokenRefresh
        return (try FlagService(store: store, options: options, logger: ServiceLogger(minimumLevel: .off)), store, uri)
    }

    /// The token table is read by one timer on PostgreSQL: the cluster round (every node must see tokens made on the
    /// others). SQLite's own reload timer, `tokenRefreshInterval`, does not run there too (it read the same rows again,
    /// at its own pace).
    @Test func theTokenTableIsReloadedOnceARoundAndByNoOtherTimer() throws {
        let (service, store, uri) = try Self.service(interval: .milliseconds(100), tokenRefresh: .milliseconds(10))
        defer { service.shutdown(); store.close() }
        // Made elsewhere (another node, `flagserver token create`): the cached path knows it within a round.
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let (secret, _) = try other.createToken(name: "elsewhere", role: .reader)
        #expect(poll(within: .seconds(10)) { service.authenticator.cachedRecord(secret: secret) != nil })
        // Rounds: each catches up once (no writes here) and then reloads the tokens once.
        #expect(poll(within: .seconds(10)) { service.node.catchUps.load(ordering: .relaxed) >= 8 })
        let reloads = service.authenticator.reloads.load(ordering: .relaxed)
        let rounds = service.node.catchUps.load(ordering: .relaxed)
        #expect(reloads >= 1 && reloads <= rounds, "\(reloads) reloads in \(rounds) rounds")
    }

    /// Every commit of every node notifies every node: a round woken by versions alone catches up, and reloads the
    /// tokens, policies and webhook receivers at most once an interval (not three reads on every notification).
    @Test func notificationsOfVersionsWakeTheCatchUpNotTheReloads() throws {
        let (service, store, uri) = try Self.service(interval: .seconds(1), tokenRefresh: .seconds(60))
        defer { service.shutdown(); store.close() }
        let name = try #require(uri.split(separator: "?").first?.split(separator: "/").last)
        #expect(poll(within: .seconds(10)) { service.node.catchUps.load(ordering: .relaxed) >= 1 })
        let catchUps = service.node.catchUps.load(ordering: .relaxed)
        let reloads = service.authenticator.reloads.load(ordering: .relaxed)
        let start = ContinuousClock.now
        for _ in 0..<40 {
            try PostgresTestCluster.shared().psql("SELECT pg_notify('\(StoreListener.channel)', 'production')", database: String(name))
        }
        let seconds = Double((ContinuousClock.now - start).components.seconds) + 1
        #expect(poll(within: .seconds(10)) { service.node.catchUps.load(ordering: .relaxed) - catchUps >= 10 })
        let woken = service.node.catchUps.load(ordering: .relaxed) - catchUps
        let reloaded = service.authenticator.reloads.load(ordering: .relaxed) - reloads
        #expect(reloaded <= Int(seconds) + 2, "\(reloaded) reloads in \(seconds) s for \(woken) rounds")
    }
}
