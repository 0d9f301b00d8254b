import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
@testable import FlagClient

/// `refresh()` with real libcurl against a document server on 127.0.0.1: the good paths.
@Suite struct FlagClientRefreshTests {
    @Test func firstLaunchWithoutCacheGetsValuesAfterRefresh() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.locked(), version: 3))
        let client = TestClients.make(server, directory)
        #expect(client.source == .safeDefaults)
        #expect(client.launchReport.cache == .absent)
        #expect(client.symi.premiumFeaturesLocked == false)

        let outcome = await client.refresh()
        #expect(outcome == .updated(version: 3, previousVersion: nil, cacheError: nil))
        #expect(client.symi.premiumFeaturesLocked == true, "a valid document may lock")
        guard case .server(version: 3, _) = client.source else {
            Issue.record("source \(client.source)")
            return
        }
        #expect(client.snapshot.results["premiumFeaturesLocked"]?.version == 3)
        #expect(directory.entries().contains("production.flagcache"))
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("GET /v1/environments/production/document HTTP/1.1\r\n"))
        // The document may come gzip-coded (a third of the bytes); the transport decodes it.
        #expect(request.lowercased().contains("\r\naccept-encoding: gzip\r\n"), "\(request)")
        #expect(server.ifNoneMatchSeen == [nil])
    }

    @Test func secondLaunchHasValuesFromCacheBeforeAnyNetwork() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        server.publish(Envelopes.make(try Envelopes.locked(), version: 5))
        let first = TestClients.make(server, directory)
        #expect(await first.refresh().isSuccess)
        server.stop()  // nothing listens any more: the second launch can only use the disk

        let second = TestClients.make(server, directory)
        #expect(second.launchReport.cache == .loaded(version: 5))
        #expect(second.symi.premiumFeaturesLocked == true)
        #expect(second.installId == first.installId, "the install id is persisted")
        guard case .cache(version: 5, let writtenAt) = second.source else {
            Issue.record("source \(second.source)")
            return
        }
        #expect(abs(writtenAt.timeIntervalSinceNow) < 60)
        #expect(server.requests.count == 1, "only the first client's refresh reached the server")
    }

    @Test func changedDocumentReachesTheClientOnTheNextRefresh() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let production = try Envelopes.production()
        server.publish(Envelopes.make(production, version: 1))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh().isSuccess)
        #expect(client.symi.introOfferMessage == "Symi ist aktuell für kurze Zeit kostenlos.")

        let changed = try Envelopes.modified(production) { flags in
            flags["introOfferMessage"] = ["type": "string", "default": "Symi Plus: jetzt kostenlos testen."]
        }
        server.publish(Envelopes.make(changed, version: 2))
        let outcome = await client.refresh(force: true)
        #expect(outcome == .updated(version: 2, previousVersion: 1, cacheError: nil))
        #expect(client.symi.introOfferMessage == "Symi Plus: jetzt kostenlos testen.")
        #expect(server.ifNoneMatchSeen.last == "\"1-\(production.contentHash.prefix(16))\"")
    }

    @Test func notModifiedKeepsTheCacheAndMarksItFresh() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let envelope = Envelopes.make(try Envelopes.production(), version: 7)
        server.publish(envelope)
        let first = TestClients.make(server, directory)
        #expect(await first.refresh().isSuccess)

        let client = TestClients.make(server, directory)
        guard case .cache(version: 7, let writtenBefore) = client.source else {
            Issue.record("source \(client.source)")
            return
        }
        let outcome = await client.refresh()
        #expect(outcome == .notModified(version: 7, cacheError: nil))
        #expect(server.ifNoneMatchSeen == [nil, envelope.etag])
        guard case .server(version: 7, let fetchedAt) = client.source else {
            Issue.record("source \(client.source)")
            return
        }
        #expect(fetchedAt >= writtenBefore)
        // The confirmation time is persisted: a third launch sees the newer time.
        let third = TestClients.make(server, directory)
        guard case .cache(version: 7, let writtenAfter) = third.source else {
            Issue.record("source \(third.source)")
            return
        }
        #expect(abs(writtenAfter.timeIntervalSince(fetchedAt)) < 0.01)
    }

    @Test func sameVersionAgainIsAcceptedAndANewerOneAfterARollbackToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let locked = try Envelopes.locked(), production = try Envelopes.production()
        server.publish(Envelopes.make(locked, version: 4))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh().isSuccess)
        #expect(client.symi.premiumFeaturesLocked)
        // A rollback on the server republishes old content as a NEW, higher version: it must be taken.
        server.publish(Envelopes.make(production, version: 5, extra: ["rolledBackFrom": 3]))
        #expect(await client.refresh(force: true) == .updated(version: 5, previousVersion: 4, cacheError: nil))
        #expect(client.symi.premiumFeaturesLocked == false)
        #expect(client.snapshot.envelope?.rolledBackFrom == 3)
    }

    @Test func minimumIntervalSkipsUnlessForcedAndConcurrentCallsShareOneFetch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 1))
        let client = TestClients.make(server, directory)
        async let a = client.refresh()
        async let b = client.refresh()
        let outcomes = await [a, b]
        #expect(outcomes.allSatisfy { $0.isSuccess })
        #expect(server.requests.count == 1, "two concurrent refreshes, one request")
        guard case .skipped(_, .minimumInterval) = await client.refresh() else {
            Issue.record("expected a skip for the minimum interval")
            return
        }
        #expect(await client.refresh(force: true) == .notModified(version: 1, cacheError: nil))
        #expect(server.requests.count == 2)
    }

    @Test func readTokenIsSentAsBearer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 1))
        var configuration = TestClients.configuration(server.baseURL, directory.url)
        configuration.readToken = "r-123"
        #expect(await FlagClient(configuration: configuration).refresh().isSuccess)
        #expect(try #require(server.requests.first).contains("\r\nAuthorization: Bearer r-123\r\n"))
    }

    @Test func invalidEnvironmentNameIsRefusedWithoutARequest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let client = FlagClient(configuration: TestClients.configuration(server.baseURL, directory.url, environment: "../x"))
        #expect(client.source == .safeDefaults)
        guard case .failed(.invalidConfiguration) = await client.refresh() else {
            Issue.record("expected invalidConfiguration")
            return
        }
        #expect(server.requests.isEmpty)
    }
}

/// Cancellation and concurrent readers.
@Suite struct FlagClientRefreshConcurrencyTests {
    @Test func cancellingTheCallerAbortsTheTransferWithoutBackoff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.fail(.neverAnswer)
        let slow = TransportOptions(connectTimeout: .seconds(5), totalTimeout: .seconds(120), maxResponseBodyBytes: 1 << 20)
        let client = TestClients.make(server, directory, options: slow)
        let started = ContinuousClock.now
        let task = Task { await client.refresh() }
        while server.requests.isEmpty, ContinuousClock.now - started < .seconds(60) { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let outcome = await task.value
        guard case .failed(.transport(let error)) = outcome else {
            Issue.record("expected a cancelled transfer, got \(outcome)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(ContinuousClock.now - started < .seconds(60), "aborted long before the 120 s timeout (generous: loaded CI)")
        #expect(client.source == .safeDefaults)
        #expect(client.state.withLock { $0.schedule.consecutiveFailures } == 0, "a cancellation is not the server's failure")
    }

    @Test func readersOnManyThreadsAlwaysSeeOneWholeSnapshot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let open = try Envelopes.production(), locked = try Envelopes.locked()
        server.publish(Envelopes.make(open, version: 1))
        let client = TestClients.make(server, directory)
        let done = Locked(false)
        let writer = Task {
            for version in 2...21 {
                server.publish(Envelopes.make(version % 2 == 0 ? locked : open, version: version))
                _ = await client.refresh(force: true)
            }
            done.withLock { $0 = true }
        }
        // Readers on threads of their own, not tasks: spinning tasks would occupy the cooperative pool (one thread
        // per core) that the refreshes and every other test of the process need.
        let tally = Locked((bad: 0, checked: 0, finished: 0))
        for _ in 0..<2 {
            Thread.detachNewThread {
                var bad = 0, checked = 0
                while !done.withLock({ $0 }) {
                    let snapshot = client.snapshot
                    checked += 1
                    if let version = snapshot.envelope?.version {
                        // Even versions are locked documents, odd ones open: a torn read would mix them.
                        if snapshot.symi.premiumFeaturesLocked != (version % 2 == 0) { bad += 1 }
                        if snapshot.results["premiumFeaturesLocked"]?.version != version { bad += 1 }
                    }
                    usleep(20)
                }
                tally.withLock { $0 = ($0.bad + bad, $0.checked + checked, $0.finished + 1) }
            }
        }
        await writer.value
        while tally.withLock({ $0.finished }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let (inconsistencies, checked, _) = tally.withLock { $0 }
        #expect(checked > 100, "readers overlapped the swaps")
        #expect(!server.requests.isEmpty)
        #expect(inconsistencies == 0)
        #expect(client.snapshot.envelope?.version == 21)
    }
}
