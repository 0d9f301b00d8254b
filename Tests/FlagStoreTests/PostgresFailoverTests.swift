import Foundation
import PostgresTestSupport
import Synchronization
import Testing
@testable import FlagStore

/// A failover on loopback: a primary with a synchronous standby, the primary (every process of it) killed with SIGKILL under writes, the
/// standby promoted with `pg_ctl promote`. The store, given both hosts with `target_session_attrs=read-write`,
/// writes again without being reopened, and every version it acknowledged is on the new primary.
@Suite struct PostgresFailoverTests {
    @Test func aPromotedSynchronousStandbyHasEveryAcknowledgedVersionAndTakesWritesWithoutAReopen() throws {
        let began = ContinuousClock.now
        func phase(_ name: String) { print("failover phase \(name): \(ContinuousClock.now - began)") }
        let pair = try PostgresFailoverPair(database: "flags")
        defer { pair.stop() }
        phase("standby streaming")
        let uri = pair.uri(database: "flags", parameters: ["connect_timeout=2"])
        let store = try FlagStore.open(location: uri, busyTimeout: .seconds(2))
        defer { store.close() }

        let acknowledged = Mutex<[(number: Int, hash: String, at: ContinuousClock.Instant)]>([])
        let failures = Mutex<[FlagStoreError]>([])
        let stop = Atomic<Bool>(false)
        let stopped = DispatchSemaphore(value: 0)
        let writer = Thread {
            var index = 0
            while !stop.load(ordering: .acquiring) {
                do {
                    let record = try store.publish(environment: "production", document: document("w\(index)"), author: "writer").record
                    acknowledged.withLock { $0.append((record.number, record.contentHash, .now)) }
                } catch {
                    failures.withLock { $0.append(FlagStoreError.wrap(error)) }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                index += 1
            }
            stopped.signal()
        }
        writer.start()
        #expect(poll(timeout: .seconds(20)) { acknowledged.withLock { $0.count } >= 20 })

        phase("20 writes")
        let (killedAt, promotedAt) = try pair.failOver()
        phase("promoted")
        let resumed = poll(timeout: .seconds(30)) { acknowledged.withLock { $0.last.map { $0.at > killedAt } ?? false } }
        phase("resumed")
        let firstAfter = acknowledged.withLock { $0.first { $0.at > killedAt }?.at }
        stop.store(true, ordering: .releasing)
        stopped.wait()
        phase("writer stopped")
        #expect(resumed, "no write succeeded after the promotion: \(failures.withLock { $0.suffix(3) })")
        // Seconds without writes: the longest pause between two acknowledged writes (the kill and promotion inside it).
        let times = acknowledged.withLock { $0.map(\.at) }
        let longest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
        print("failover: longest time without an acknowledged write \(longest) (SIGKILL of the primary, pg_ctl promote, reconnect);"
              + " promotion took \(promotedAt - killedAt), first write after the kill \(firstAfter.map { $0 - killedAt } ?? .zero)")
        // Writes resume within about a second of the promotion (a generous bound for a loaded machine): reconnecting
        // waits at most `PostgresConnection.maximumRetryDelay` after a failed attempt.
        #expect(firstAfter.map { $0 - promotedAt < .seconds(3) } ?? false,
                "first write \(firstAfter.map { $0 - promotedAt } ?? .zero) after the promotion")
        // While the primary was gone, writes failed as unavailable (or busy), never as anything else.
        #expect(failures.withLock { $0 }.allSatisfy { if case .unavailable = $0 { true } else if case .busy = $0 { true } else { false } },
                "\(failures.withLock { $0.prefix(3) })")

        let stored = try store.versions(environment: "production", limit: 1000)
        let byNumber = Dictionary(stored.map { ($0.number, $0.contentHash) }, uniquingKeysWith: { first, _ in first })
        for version in acknowledged.withLock({ $0 }) {
            #expect(byNumber[version.number] == version.hash, "acknowledged version \(version.number) lost or changed")
        }
        #expect(stored.map(\.number) == Array((1...(stored.first?.number ?? 0)).reversed()), "no gap, no double")
    }
}
