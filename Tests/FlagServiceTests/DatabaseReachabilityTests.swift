import FlagStore
import Testing
@testable import FlagService

/// Whether a node can reach the shared database (`DatabaseReachability`), and what its document GETs and `/metrics`
/// say while it cannot.
@Suite struct DatabaseReachabilityTests {
    static let second: UInt64 = 1_000_000_000

    @Test func neverConfirmedIsNeverUnreachableWhateverFails() {
        let reachability = DatabaseReachability(patience: .seconds(5))
        #expect(reachability.unreachableSeconds(now: 100 * Self.second) == nil)
        // One process (SQLite) never confirms: nothing else writes its versions, so nothing it serves can be behind.
        reachability.lose()
        #expect(reachability.unreachableSeconds(now: 100 * Self.second) == nil)
    }

    @Test func aFailedCatchUpIsUnreachableAtOnceWithTheSecondsSinceTheLastConfirmation() {
        let reachability = DatabaseReachability(patience: .seconds(5))
        reachability.confirm(startedAt: 10 * Self.second)
        #expect(reachability.unreachableSeconds(now: 11 * Self.second) == nil)
        reachability.lose()
        #expect(reachability.unreachableSeconds(now: 11 * Self.second) == 1)
        #expect(reachability.unreachableSeconds(now: 52 * Self.second + Self.second / 2) == 42)
        // The next catch-up that reads the database ends it.
        reachability.confirm(startedAt: 53 * Self.second)
        #expect(reachability.unreachableSeconds(now: 53 * Self.second + 1) == nil)
    }

    @Test func aCatchUpThatDoesNotComeBackWithinThePatienceIsUnreachableWithoutAnError() {
        let reachability = DatabaseReachability(patience: .seconds(5))
        reachability.confirm(startedAt: 10 * Self.second)
        // A database that hangs: no error, the round waits in its read.
        #expect(reachability.unreachableSeconds(now: 15 * Self.second) == nil)
        #expect(reachability.unreachableSeconds(now: 15 * Self.second + 1) == 5)
        #expect(reachability.unreachableSeconds(now: 30 * Self.second) == 20)
        // A clock read before the confirmation it is compared with (another thread confirmed in between): reachable.
        #expect(reachability.unreachableSeconds(now: 9 * Self.second) == nil)
    }

    /// One process on SQLite cannot be cut off from its database: its document GET carries no check (the hot path
    /// stays as short as it was), while `/metrics` reports the record whatever the store. The GET's field on a node of
    /// several, 200, gzip and 304, is checked against real processes on PostgreSQL (`FlagServerClusterTests`).
    @Test func aSingleProcessGETCarriesNoCheckAndMetricsReportTheRecord() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let path = "/v1/environments/production/document"
        let reachability = server.service.node.reachability
        #expect(try await server.get("/metrics").text.contains("\nflagserver_database_unreachable_seconds 0\n"))

        reachability.confirm(startedAt: MonotonicClock.nanoseconds() - 7 * Self.second)
        reachability.lose()
        #expect(reachability.unreachableSeconds().map { $0 >= 7 } == true)
        let etag = try await server.etag()
        let answers = [
            try await server.get(path),
            try await server.get(path, headers: [("Accept-Encoding", "gzip")]),
            try await server.get(path, headers: [("If-None-Match", etag)]),
        ]
        #expect(answers.map(\.status) == [200, 200, 304])
        for answer in answers {
            #expect(answer.header("Flagserver-Database-Unreachable-Seconds") == nil, "\(answer.status)")
        }
        let metric = try await server.get("/metrics").text.split(separator: "\n")
            .first { $0.hasPrefix("flagserver_database_unreachable_seconds ") }
        #expect((metric?.split(separator: " ").last).flatMap { Int($0) }.map { $0 >= 7 } == true, "\(metric ?? "none")")

        reachability.confirm(startedAt: MonotonicClock.nanoseconds())
        #expect(try await server.get("/metrics").text.contains("\nflagserver_database_unreachable_seconds 0\n"))
    }
}
