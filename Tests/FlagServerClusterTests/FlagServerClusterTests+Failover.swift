import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import PostgresTestSupport
import TestSupport
import Testing

/// Failures of several nodes with real processes: a node killed with SIGKILL under writes, the primary killed and its
/// synchronous standby promoted while nodes serve and write, and a database that stops answering (`/readyz`).
extension FlagServerClusterTests {
    /// Every acknowledged version is in `store` with its content hash and the value its writer set, the history is
    /// numbered 1...n without a gap or a double, no refused value was ever published, and each writer's flag never goes
    /// back to an older value in a later version (an older document published over a newer one). The history, oldest first.
    @discardableResult
    static func checkHistory(_ store: FlagStore, writers: [FlipWriter]) throws -> [VersionRecord] {
        var history: [VersionRecord] = []
        var before: Int?
        repeat {
            let page = try store.versions(environment: "production", limit: 1000, before: before)
            history += page
            before = page.count == 1000 ? page.last?.number : nil
        } while before != nil
        history.reverse()
        #expect(history.map(\.number) == Array(1...history.count), "numbered without a gap or a double")
        let documents = try history.map { try FlagDocument.decode($0.document) }
        for writer in writers {
            let values = documents.map { $0.flags[writer.key]?.defaultValue.integerValue }
            for acknowledged in writer.acknowledged.withLock({ $0 }) {
                let stored = history.indices.contains(acknowledged.version - 1) ? history[acknowledged.version - 1] : nil
                #expect(stored?.contentHash == acknowledged.contentHash, "\(writer.key) version \(acknowledged.version) lost or changed")
                #expect(values.indices.contains(acknowledged.version - 1) && values[acknowledged.version - 1] == acknowledged.value,
                        "\(writer.key) version \(acknowledged.version) does not hold \(acknowledged.value)")
            }
            let present = values.compactMap { $0 }
            #expect(zip(present, present.dropFirst()).allSatisfy { $0 <= $1 }, "\(writer.key) went back: \(present)")
            #expect(writer.refusedValues.isDisjoint(with: present), "\(writer.key): a refused value was published")
        }
        return history
    }

    @Test func aNodeKilledUnderWritesLosesNothingAndARestartedNodeCatchesUp() async throws {
        let cluster = try await Cluster(nodes: 3)
        defer { cluster.finish() }
        let ports = cluster.nodes.map(\.port)
        // Two writers per node, each on a flag of its own; readers on the two nodes that live.
        let writers = (0..<6).map { FlipWriter(key: "killed\($0)", ports: [ports[$0 % 3]], nodes: [$0 % 3], token: cluster.token,
                                              stopWhenUnreachable: true) }
        let readers = (0..<2).map { DocumentReader(node: $0, port: ports[$0]) }
        #expect(await eventually(within: .seconds(30)) { writers.allSatisfy { $0.acknowledgedCount() >= 5 } })

        let victim = cluster.nodes[2]
        await victim.stop(signal: SIGKILL)
        let killedAt = ContinuousClock.now
        let survivors = writers.filter { Int($0.key.dropFirst("killed".count))! % 3 != 2 }
        #expect(await eventually(within: .seconds(30)) { survivors.allSatisfy { $0.acknowledgedCount(after: killedAt) >= 10 } },
                "the other nodes keep writing")
        for writer in writers { writer.stop() }
        for reader in readers { reader.stop() }

        for reader in readers {
            #expect(reader.failures.withLock { $0.isEmpty }, "node \(reader.node): \(reader.failures.withLock { $0.prefix(3) })")
        }
        for writer in survivors {
            // `503 busy` is a refusal like a 412 (other nodes committed first through every rebase); any other 5xx or
            // no answer is a failure of a surviving node.
            let failed = writer.unacknowledged.withLock { $0.filter { ($0.status >= 500 && !$0.isBusy) || $0.status == 0 } }
            #expect(failed.isEmpty, "\(writer.key): \(failed.prefix(3))")
        }
        let store = try FlagStore.open(location: cluster.uri)
        defer { store.close() }
        let history = try Self.checkHistory(store, writers: writers)
        let conflicts = survivors.map { $0.unacknowledged.withLock { $0.filter { $0.status == 412 }.count } }.reduce(0, +)
        let busy = survivors.map { $0.unacknowledged.withLock { $0.filter(\.isBusy).count } }.reduce(0, +)
        print("cluster: node killed under writes: \(history.count) versions, "
              + "\(writers.map { $0.acknowledgedCount() }.reduce(0, +)) acknowledged, \(conflicts) answered 412, \(busy) 503 busy")

        // A node started again serves the newest version.
        let restarted = try await cluster.start()
        let newest = try #require(try store.currentVersion(environment: "production")).number
        let caughtUp = await eventually(within: .seconds(10)) {
            (try? await RawHTTP.request(port: restarted.port, method: "GET", path: "/v1/environments/production/document")
                .json()["version"]?.integerValue) == Int64(newest)
        }
        #expect(caughtUp, "the restarted node serves version \(newest)")
    }

    @Test func thePrimaryDiesAndItsStandbyIsPromotedWhileNodesServeAndWrite() async throws {
        let pair = try await offPool { try PostgresFailoverPair(database: "flags", tcp: true) }
        defer { pair.stop() }
        // The URI a deployment gives every node: both hosts, the primary wanted.
        let uri = pair.uri(database: "flags")
        #expect(uri.hasPrefix("postgresql://127.0.0.1:\(pair.primary.port),127.0.0.1:\(pair.standby.port)/flags?"))
        let cluster = try await Cluster(nodes: 3, uri: uri)
        defer { cluster.finish() }
        let processes = cluster.nodes.map(\.process.processIdentifier)
        let readers = cluster.nodes.indices.map { DocumentReader(node: $0, port: cluster.nodes[$0].port) }
        let writer = FlipWriter(key: "failoverCounter", ports: cluster.nodes.map(\.port), token: cluster.token)
        #expect(await eventually(within: .seconds(30)) { writer.acknowledgedCount() >= 20 })

        let (killedAt, promotedAt) = try await offPool { try pair.failOver() }
        let resumed = await eventually(within: .seconds(30)) { writer.acknowledgedCount(after: promotedAt) >= 20 }
        let stoppedAt = ContinuousClock.now
        writer.stop()
        for reader in readers { reader.stop() }
        #expect(resumed, "writes did not resume: \(writer.unacknowledged.withLock { $0.suffix(3) })")

        // Reads never stopped: every GET of every node during the whole test was answered 200 or 304.
        for reader in readers {
            #expect(reader.failures.withLock { $0.isEmpty }, "node \(reader.node): \(reader.failures.withLock { $0.prefix(3) })")
            let silence = reader.longestSilence(from: killedAt, to: stoppedAt)
            #expect(silence < .seconds(2), "node \(reader.node) answered no GET for \(silence)")
        }
        // No node was restarted; while the database was away writes were answered 503 database_unavailable.
        #expect(cluster.nodes.map(\.process.processIdentifier) == processes && cluster.nodes.allSatisfy(\.process.isRunning))
        let refusals = writer.unacknowledged.withLock { $0 }
        #expect(refusals.allSatisfy { $0.status == 503 && $0.code == "database_unavailable" }, "\(refusals.prefix(3))")

        let times = writer.acknowledged.withLock { $0.map(\.at) }
        let longest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
        let first = try #require(writer.acknowledged.withLock { $0.first { $0.at > killedAt } })
        print("cluster failover: longest time without an acknowledged write \(longest); promotion took \(promotedAt - killedAt); "
              + "first acknowledged write \(first.at - killedAt) after the kill (node \(first.node)); "
              + "\(refusals.count) writes answered 503 meanwhile; \(writer.acknowledgedCount()) acknowledged")
        #expect(first.at - promotedAt < .seconds(5), "writes resumed \(first.at - promotedAt) after the promotion")

        // Everything acknowledged is on the new primary, and every node serves its newest version.
        let store = try FlagStore.open(location: pair.standby.uri(database: "flags"))
        defer { store.close() }
        let history = try Self.checkHistory(store, writers: [writer])
        let newest = try #require(history.last).number
        for node in cluster.nodes.indices {
            #expect(try await cluster.waitForVersion(node, Int64(newest), seconds: 10) != nil, "node \(node) serves \(newest)")
        }
    }

    /// The database stops answering (its postmaster stopped, so a connect waits for `connect_timeout`) and every session
    /// of the node ends: `/readyz` still answers within about a second, degraded, reads go on, and once the server
    /// runs again the same process is ready and writes.
    @Test func readyzAnswersPromptlyWhileTheDatabaseDoesNotAnswer() async throws {
        let postgres = try await offPool { try PostgresTestCluster() }
        defer { postgres.stop() }
        try postgres.psql("CREATE DATABASE flags")
        // connect_timeout 5 s (a deployment's choice; the URI's value wins over flagserver's 2 s): a connect to the
        // stopped server takes that long, /readyz must not.
        let cluster = try await Cluster(nodes: 1, uri: postgres.uri(database: "flags", connectTimeout: 5))
        defer { cluster.finish() }
        #expect(try await cluster.request(0, "GET", "/readyz").status == 200)
        let before = try #require(try await cluster.version(0))

        let postmaster = try postgres.postmasterPID()
        kill(postmaster, SIGSTOP)
        defer { kill(postmaster, SIGCONT) }
        let sessions = try postgres.backendIDs(database: "flags")
        #expect(!sessions.isEmpty)
        for pid in sessions { kill(pid, SIGTERM) }
        // Ended: a zombie (its parent, stopped, cannot reap it) or gone.
        func ended(_ pid: pid_t) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                return true
            }
            return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
        }
        #expect(await eventually(within: .seconds(10)) { sessions.allSatisfy(ended) }, "the sessions ended")

        for _ in 0..<3 {
            let began = ContinuousClock.now
            let ready = try await cluster.request(0, "GET", "/readyz")
            let took = ContinuousClock.now - began
            #expect(ready.status == 503 && (try? ready.json()["status"]) == "degraded" && (try? ready.json()["reads"]) == "ok"
                    && (try? ready.errorCode()) == "database_unavailable", "\(ready.status) \(ready.text)")
            #expect(took < .milliseconds(2_500), "/readyz took \(took)")
        }
        #expect(try await cluster.version(0) == before, "reads are served from memory")

        kill(postmaster, SIGCONT)
        #expect(await eventually(within: .seconds(30)) { (try? await cluster.request(0, "GET", "/readyz").status) == 200 })
        #expect(await eventually(within: .seconds(30)) {
            (try? await cluster.request(0, "PUT", Self.banner, token: cluster.token, json: Self.flip(false)).status) == 200
        })
        #expect(try await cluster.version(0) == before + 1)
    }

    /// The database stops answering while the node's sessions are alive (every server process stopped: SIGSTOP, as a hung
    /// machine or a cut link looks to the client): a write answers 503 `database_unavailable` after about
    /// `--database-timeout` (the write's lock wait comes on top), never hangs; reads go on from memory; once the server
    /// continues, the same process writes again.
    @Test func aWriteAnswers503WhileTheDatabaseIsStoppedAndWritesAgainAfter() async throws {
        let postgres = try await offPool { try PostgresTestCluster() }
        defer { postgres.stop() }
        try postgres.psql("CREATE DATABASE flags")
        let cluster = try await Cluster(nodes: 1, uri: postgres.uri(database: "flags", connectTimeout: 2),
                                        options: ["--database-timeout", "1"])
        defer { cluster.finish() }
        #expect(try await cluster.request(0, "PUT", Self.banner, token: cluster.token, json: Self.flip(true)).status == 200)
        let before = try #require(try await cluster.version(0))

        try postgres.freeze()
        var thawed = false
        defer { if !thawed { try? postgres.thaw() } }
        let began = ContinuousClock.now
        let answer = try await cluster.request(0, "PUT", Self.banner, token: cluster.token, json: Self.flip(false))
        let took = ContinuousClock.now - began
        #expect(answer.status == 503 && (try? answer.errorCode()) == "database_unavailable", "\(answer.status) \(answer.text)")
        #expect(took >= .seconds(1) && took < .seconds(120), "the write took \(took) (the deadline is 1 s; a hang lasts until the thaw)")
        #expect(try await cluster.version(0) == before, "reads are served from memory")

        try postgres.thaw()
        thawed = true
        #expect(await eventually(within: .seconds(30)) {
            (try? await cluster.request(0, "PUT", Self.banner, token: cluster.token, json: Self.flip(false)).status) == 200
        })
        #expect(try await cluster.version(0) == before + 1)
    }
}
