import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
import TransportTestSupport
@testable import FlagClient

/// Change notification: a stream and callbacks, for new documents only.
@Suite struct FlagClientObservationTests {
    /// Counts and remembers callback deliveries across threads.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [Int?] = []
        func record(_ snapshot: FlagSnapshot) { lock.withLock { seen.append(snapshot.envelope?.version) } }
        var versions: [Int?] { lock.withLock { seen } }
    }

    @Test func callbackHearsNewDocumentsNotConfirmationsOrFailures() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let production = try Envelopes.production()
        server.publish(Envelopes.make(production, version: 1))
        let client = TestClients.make(server, directory)
        let recorder = Recorder()
        let token = client.onChange { recorder.record($0) }
        #expect(await client.refresh().isSuccess)
        #expect(recorder.versions == [1])
        #expect(await client.refresh(force: true) == .notModified(version: 1, cacheError: nil))
        server.fail(.raw(FaultServer.response(status: 500)))
        #expect(await client.refresh(force: true).error != nil)
        #expect(recorder.versions == [1], "a 304 and a failure change no value")
        server.publish(Envelopes.make(try Envelopes.locked(), version: 2))
        #expect(await client.refresh(force: true).isSuccess)
        #expect(recorder.versions == [1, 2])

        token.cancel()
        server.publish(Envelopes.make(production, version: 3))
        #expect(await client.refresh(force: true).isSuccess)
        #expect(recorder.versions == [1, 2], "cancelled: no more calls")
    }

    @Test func releasingTheTokenEndsTheRegistration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 1))
        let client = TestClients.make(server, directory)
        let recorder = Recorder()
        var token: FlagObservation? = client.onChange { recorder.record($0) }
        #expect(token != nil)
        token = nil
        #expect(await client.refresh().isSuccess)
        #expect(recorder.versions.isEmpty)
    }

    @Test func streamStartsWithTheCurrentValuesThenYieldsNewOnes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.locked(), version: 4))
        let client = TestClients.make(server, directory)
        var iterator = client.updates().makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.source == .safeDefaults && first.symi.premiumFeaturesLocked == false)
        #expect(await client.refresh().isSuccess)
        let second = try #require(await iterator.next())
        #expect(second.envelope?.version == 4 && second.symi.premiumFeaturesLocked)
    }

    @Test func endedStreamIsForgotten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url))
        do {
            let stream = client.updates()
            _ = stream
        }
        #expect(client.state.withLock { $0.observers.isEmpty })
        var english = TestClients.germanApp
        english.locale = "en"
        let recorder = Recorder()
        let token = client.onChange { recorder.record($0) }
        client.updateApp(english)
        client.updateApp(english)  // no change, no call
        #expect(recorder.versions == [nil])
        token.cancel()
    }
}
