import Foundation
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing
@testable import FlagStore

/// How the PostgreSQL connection talks to the server (`PostgresConnection+Exchange`): a group commit in a fixed number of
/// round trips whatever its size, errors inside a pipeline as they were one statement at a time, and the client-side
/// deadline against a server that stops answering (SIGSTOP: alive, its sockets open, silent).
@Suite struct PostgresConnectionExchangeTests {
    /// Flips chained on each other, as the writer's group commit builds them.
    private static func flips(_ count: Int, on head: Int, environment: String = "production", tag: String,
                              author: String = "alice") -> [PublishRequest] {
        (0..<count).map {
            PublishRequest(environment: environment, document: document("\(tag)-\($0)"), author: author,
                           expectedCurrentVersion: head + $0, chainedOnPrevious: $0 > 0)
        }
    }

    /// BEGIN with the write lock and the environment's head, then every insert, audit line and notification with
    /// COMMIT: two round trips for 1, 8 or 64 flips (one statement at a time, 8 per flip and 3 per commit, made it 11,
    /// 67 and 515); another environment in the same commit adds one (its head).
    @Test func aGroupCommitCostsTwoRoundTripsWhateverItsSize() throws {
        let store = try FlagStore.open(location: try PostgresTestCluster.shared().createDatabase())
        defer { store.close() }
        try store.createEnvironment(name: "qa", actor: "ops")
        var head = 0
        for size in [1, 8, 64] {
            let before = store.writerRoundTrips
            let results = try store.publish(batch: Self.flips(size, on: head, tag: "\(size)"),
                                            audit: [AuditRecord(actor: "-", action: "publish", outcome: .refused, status: 401)])
            #expect(store.writerRoundTrips - before == 2, "\(size) flips")
            #expect(results.map { try? $0.get().record.number } == (1...size).map { head + $0 })
            head += size
        }
        let before = store.writerRoundTrips
        let mixed = try store.publish(batch: Self.flips(4, on: head, tag: "mixed") + Self.flips(4, on: 0, environment: "qa", tag: "s"))
        #expect(store.writerRoundTrips - before == 3)
        #expect(mixed.allSatisfy { (try? $0.get()) != nil })
        // Everything those round trips carried was committed: each version, its audit line, the refusal's line.
        #expect(try store.currentVersion(environment: "production")?.number == head + 4)
        #expect(try store.currentVersion(environment: "qa")?.number == 4)
        let lines = try store.auditEntries(limit: 1000)
        #expect(lines.filter { $0.action == "publish" && $0.outcome == .ok }.count == head + 8)
        #expect(lines.filter { $0.outcome == .refused }.count == 3)
    }

    /// Another node came first: the head query brings the newest version's record with it (its content is not the one
    /// the batch was built on), the batch is rebuilt on it under the lock, and the commit still costs two round trips;
    /// a chained request follows the rebuilt one.
    @Test func aBatchAnotherNodeOvertookIsRebuiltOnTheHeadItsFirstQueryRead() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        let base = try store.publish(environment: "production", document: document("base"), author: "alice").record
        let theirs = try other.publish(environment: "production", document: document("theirs"), author: "bob").record
        var requests = Self.flips(2, on: base.number, tag: "mine")
        requests[0].expectedCurrentHash = base.contentHash
        let seen = Mutex<[VersionRecord?]>([])
        let before = store.writerRoundTrips
        let results = try store.publish(batch: requests) { index, newest in
            seen.withLock { $0.append(newest) }
            return document("mine-\(index) on \(newest?.number ?? 0)")
        }
        #expect(store.writerRoundTrips - before == 2)
        #expect(results.map { try? $0.get().record.number } == [theirs.number + 1, theirs.number + 2])
        let rebuiltOn = seen.withLock { $0 }
        #expect(rebuiltOn.first??.number == theirs.number && rebuiltOn.first??.document == theirs.document
                && rebuiltOn.first??.author == "bob")
        #expect(try store.currentVersion(environment: "production")?.document == document("mine-1 on \(theirs.number + 1)"))
    }

    /// A statement sent without waiting for its answer that fails (here an audit line a trigger refuses, SQLSTATE
    /// 23514) fails the whole commit with its own SQLSTATE and SQL, nothing of the batch is stored, and the connection
    /// serves the next commit.
    @Test func anErrorInsideAPipelineKeepsItsSQLStateAndRollsTheWholeBatchBack() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        let admin = try Database(postgres: uri)
        defer { admin.close() }
        try admin.execute("""
            CREATE FUNCTION refuse_bob() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = 'bob may not'; END $$;
            CREATE TRIGGER refuse_bob BEFORE INSERT ON audit FOR EACH ROW WHEN (NEW.actor = 'bob') EXECUTE FUNCTION refuse_bob();
            """)
        _ = try store.publish(environment: "production", document: document("first"), author: "alice")
        var batch = Self.flips(3, on: 1, tag: "ok")
        batch[1].author = "bob"
        let error = try #require(throws: FlagStoreError.self) { try store.publish(batch: batch) }
        guard case .database(let cause) = error else {
            Issue.record("expected a database error, got \(error)")
            return
        }
        #expect(cause.sqlState == "23514" && cause.message == "bob may not")
        #expect(cause.sql?.hasPrefix("INSERT INTO audit") == true)
        #expect(try store.currentVersion(environment: "production")?.number == 1)
        let next = try store.publish(batch: Self.flips(2, on: 1, tag: "next"))
        #expect(next.map { try? $0.get().record.number } == [2, 3])
    }

    /// A transaction whose session is lost stays lost: a statement of it after the failure (a caller that swallowed the
    /// error) is refused rather than sent on a new session, where it would run outside any transaction and its lock;
    /// the next transaction runs on the new session.
    @Test func aStatementOfATransactionIsNeverSentOnAnotherSession() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let connection = try PostgresConnection(conninfo: uri)
        defer { connection.close() }
        let database = Database.postgres(connection)
        try database.execute("CREATE TABLE t (n BIGINT)")
        let other = try Database(postgres: uri)
        defer { other.close() }
        let pid = Int64(connection.session.backendPID.load(ordering: .relaxed))
        var terminated = false
        var second: DatabaseError?
        do {
            try database.transaction(.write) {
                try database.run("INSERT INTO t VALUES (1)")
                try other.run("SELECT pg_terminate_backend(CAST(? AS INTEGER))", [.integer(pid)])
                terminated = try poll(timeout: .seconds(10)) {
                    try other.queryFirst("SELECT count(*) FROM pg_stat_activity WHERE pid = CAST(? AS INTEGER)", [.integer(pid)]) {
                        $0.int(0)
                    } == 0
                }
                do { try database.run("INSERT INTO t VALUES (2)") } catch let error as DatabaseError { second = error }
                try database.run("INSERT INTO t VALUES (3)")
            }
            Issue.record("the transaction committed on another session")
        } catch let error as DatabaseError {
            #expect(error.isUnavailable && error.sql == "INSERT INTO t VALUES (3)", "\(error)")
        }
        #expect(terminated)
        #expect(second?.isUnavailable == true, "\(String(describing: second))")
        #expect(try other.query("SELECT n FROM t") { $0.int(0) } == [])
        try database.transaction(.write) { try database.run("INSERT INTO t VALUES (4)") }
        #expect(try other.query("SELECT n FROM t") { $0.int(0) } == [4])
    }

    /// A stopped server (SIGSTOP of every process) answers nothing: a write and a read fail as unavailable (`08006`)
    /// after about the deadline, not instantly and not never; so do the jobs' lease and a listener's LISTEN; once the
    /// server continues, the same store writes and reads again without a restart.
    @Test func aStoppedServerFailsCallsAfterTheDeadlineAndTheyWorkAgainWhenItContinues() throws {
        let cluster = try PostgresTestCluster()
        defer { cluster.stop() }
        try cluster.psql("CREATE DATABASE frozen")
        let uri = cluster.uri(database: "frozen", connectTimeout: 2)
        let timeout = Duration.milliseconds(500)
        let store = try FlagStore.open(location: uri, busyTimeout: .milliseconds(500), databaseTimeout: timeout)
        defer { store.close() }
        let lease = try #require(try store.makeJobLease())
        defer { lease.close() }
        #expect(lease.renew())
        _ = try store.publish(environment: "production", document: document("before"), author: "alice")

        try cluster.freeze()
        var thawed = false
        defer { if !thawed { try? cluster.thaw() } }
        func failsUnavailable(_ what: String, _ body: () throws -> Void) {
            let began = ContinuousClock.now
            do {
                try body()
                Issue.record("\(what) succeeded on a stopped server")
            } catch FlagStoreError.unavailable(let cause) {
                #expect(cause.sqlState?.hasPrefix("08") == true, "\(what): \(cause)")
            } catch {
                Issue.record("\(what): expected unavailable, got \(error)")
            }
            let took = ContinuousClock.now - began
            // The write waits for the lock's answer too (busy timeout + deadline); nothing waits ten times that.
            #expect(took >= timeout && took < .seconds(10), "\(what) took \(took)")
        }
        failsUnavailable("a write") { _ = try store.publish(environment: "production", document: document("frozen"), author: "alice") }
        failsUnavailable("a read") { _ = try store.latestVersions() }
        let began = ContinuousClock.now
        #expect(!lease.renew())
        #expect(ContinuousClock.now - began < .seconds(120))

        try cluster.thaw()
        thawed = true
        #expect(poll(timeout: .seconds(20)) {
            (try? store.publish(environment: "production", document: document("after"), author: "alice").record.number) == 2
        })
        #expect(poll(timeout: .seconds(20)) { (try? store.latestVersions()["production"]?.number) == 2 })
        #expect(poll(timeout: .seconds(20)) { lease.renew() })
    }

    /// The simple query protocol (LISTEN, schema changes: several statements in one text) has the deadline too, and a
    /// listener's wait on a stopped server lasts its timeout (silence is no error): neither hangs the node's sync thread.
    /// Both work again once the server continues.
    @Test func listeningDoesNotHangOnAStoppedServer() throws {
        let cluster = try PostgresTestCluster()
        defer { cluster.stop() }
        try cluster.psql("CREATE DATABASE frozen")
        let uri = cluster.uri(database: "frozen", connectTimeout: 2)
        let store = try FlagStore.open(location: uri, databaseTimeout: .milliseconds(500))
        defer { store.close() }
        let listener = try store.makeListener()
        defer { listener.close() }
        #expect(try listener.wait(timeout: .milliseconds(10)).reconnected)
        let connection = try PostgresConnection(conninfo: uri, timeout: .milliseconds(500))
        defer { connection.close() }
        try connection.execute("LISTEN a; LISTEN b")

        try cluster.freeze()
        var thawed = false
        defer { if !thawed { try? cluster.thaw() } }
        var began = ContinuousClock.now
        #expect(try listener.wait(timeout: .milliseconds(300)) == StoreListener.Heard())
        #expect(ContinuousClock.now - began < .seconds(120))
        began = ContinuousClock.now
        let error = try #require(throws: DatabaseError.self) { try connection.execute("UNLISTEN a; LISTEN c") }
        let took = ContinuousClock.now - began
        #expect(error.isUnavailable && error.sqlState == "08006", "\(error)")
        #expect(took >= .milliseconds(500) && took < .seconds(120), "took \(took) (the deadline is 0.5 s; a hang lasts until the thaw)")

        try cluster.thaw()
        thawed = true
        #expect(poll(timeout: .seconds(20)) { (try? connection.execute("LISTEN c")) != nil })
        let other = try FlagStore.open(location: uri)
        defer { other.close() }
        _ = try other.publish(environment: "production", document: document("theirs"), author: "other")
        #expect(try listener.wait(timeout: .seconds(10)).published)
    }
}
