import FlagStore
import Foundation

/// A primary and a synchronous streaming standby on loopback, for failover tests: the standby is a copy of the
/// primary (`pg_basebackup -R`) and every commit waits for it (`synchronous_standby_names = '*'`, set once it streams),
/// so nothing acknowledged is on the primary alone. `failOver()` kills every process of the primary with SIGKILL, as
/// when its machine dies, and promotes the standby with `pg_ctl promote`.
///
/// `wal_retrieve_retry_interval` is 200 ms (PostgreSQL's default is 5 s): a promote request that reaches the standby's
/// startup process in the instant after its WAL receiver lost the primary and before it sleeps that interval is taken
/// only after the sleep. `failOver()` promotes within milliseconds of the kill, so the race was hit in about one run
/// in eight: the promotion (and the test's time without writes) took 5.0 s instead of ~0.1 s (3.0 s with the interval
/// at 3 s, so that interval and nothing of ours; the standby's log shows "received promote request", then "waiting
/// for WAL to become available", then 5 s later "redo done").
package final class PostgresFailoverPair: Sendable {
    /// The first primary (killed by `failOver()`).
    package let primary: PostgresTestCluster
    /// The standby (the primary after `failOver()`).
    package let standby: PostgresTestCluster

    /// Starts both and creates database `database` on the primary (the standby copies it); `tcp`: both listen on
    /// 127.0.0.1 too, for `postgresql://host:port,host:port/...` URIs. Returns once the standby is synchronous.
    package init(database: String, tcp: Bool = false, settings: [String] = []) throws {
        let settings = ["wal_retrieve_retry_interval=200ms"] + settings
        primary = try PostgresTestCluster(settings: settings, tcp: tcp)
        do {
            try primary.psql("CREATE DATABASE \(database)")
            standby = try PostgresTestCluster(settings: settings, standbyOf: primary, tcp: tcp)
        } catch {
            primary.stop()
            throw error
        }
        do {
            // Synchronous only once the standby streams: before, every commit would wait for it.
            try primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'")
            try primary.psql("SELECT pg_reload_conf()")
            let deadline = ContinuousClock.now + .seconds(30)
            while try Self.synchronousStandbys(primary) != 1 {
                guard ContinuousClock.now < deadline else {
                    throw PostgresTestCluster.SetupError(description: "the standby did not become synchronous within 30 s")
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        } catch {
            stop()
            throw error
        }
    }

    private static func synchronousStandbys(_ cluster: PostgresTestCluster) throws -> Int {
        let connection = try Database(postgres: cluster.uri(database: "postgres"))
        defer { connection.close() }
        return try connection.queryFirst("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") { $0.int(0) } ?? 0
    }

    /// Both servers in one libpq URI for `database`, primary first, with `target_session_attrs=read-write` so a client
    /// finds whichever is primary: over TCP (`postgresql://127.0.0.1:p1,127.0.0.1:p2/db?...`, the form a deployment
    /// uses) when the pair was started with `tcp`, else over the unix sockets. `parameters` are appended (`connect_timeout=2`).
    package func uri(database: String, parameters: [String] = []) -> String {
        let query = (["user=\(primary.user)", "target_session_attrs=read-write"] + parameters).joined(separator: "&")
        if primary.tcp {
            return "postgresql://127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(database)?\(query)"
        }
        return "postgresql:///\(database)?host=\(primary.directory),\(standby.directory)&port=\(primary.port),\(standby.port)&\(query)"
    }

    /// The primary dies (every process, SIGKILL) and the standby is promoted; when each of the two was done.
    @discardableResult
    package func failOver() throws -> (killed: ContinuousClock.Instant, promoted: ContinuousClock.Instant) {
        try primary.killHard()
        let killed = ContinuousClock.now
        try standby.promote()
        return (killed, ContinuousClock.now)
    }

    /// Stops both and removes their files.
    package func stop() {
        standby.stop()
        primary.stop()
    }
}
