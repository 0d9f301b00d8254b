import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
import TransportTestSupport
@testable import FlagClient

/// `startListening()`: the event stream triggers refreshes, one per burst; hostile streams are dropped with the
/// values left as they were; stopping ends the connection.
@Suite struct FlagClientListeningTests {
    static let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".utf8)

    static func event(_ version: Int) -> String {
        "id: \(version)\ndata: {\"etag\":\"\\\"\(version)-0000000000000000\\\"\",\"lastModified\":1780000000,\"type\":\"refetchEvaluation\"}\n\n"
    }

    @Test func aBurstOfEventsGivesOneRefreshThatInstallsTheNewValues() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let changed = try Envelopes.modified(try Envelopes.production()) { flags in
            flags["showIntroFreeSubscriptionBanner"] = ["type": "boolean", "default": false, "requires": ["monetizationEnabled": true]]
        }
        server.publish(Envelopes.make(changed, version: 2))
        // Five events 20 ms apart (a refresh here takes a few ms, so without coalescing each later event would
        // fetch again), each in a piece of its own after the preamble.
        let event = Array(Self.event(2).utf8)
        let burst = (2...6).flatMap { Array(Self.event($0).utf8) }
        server.stream(.drip(head: Self.head + Array(": events\nretry: 3000\n\n".utf8), body: burst, chunk: event.count,
                            interval: .milliseconds(20)))
        let client = TestClients.make(server, directory)
        #expect(client.symi.showIntroFreeSubscriptionBanner)
        client.startListening()
        defer { client.stopListening(after: .zero) }
        #expect(await eventually { !client.symi.showIntroFreeSubscriptionBanner })
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.documentRequests == 1)
        #expect(server.streamRequests.first?.lowercased().contains("accept: text/event-stream") == true)
    }

    @Test func hostileStreamsAreDroppedAndTheValuesStay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 1))
        let noNewlines = [UInt8](repeating: 0x61, count: 300_000)
        let hugeEvent = Array("data: ".utf8) + [UInt8](repeating: 0x7B, count: 10 << 20)
        server.stream(.drip(head: Self.head, body: noNewlines, chunk: 32 << 10, interval: .milliseconds(1)),
                      .drip(head: Self.head, body: hugeEvent, chunk: 256 << 10, interval: .milliseconds(1)))
        let client = TestClients.make(server, directory)
        let before = client.snapshot
        client.startListening()
        defer { client.stopListening(after: .zero) }
        // Dropped at 64 KiB and reconnected (backoff 1-2 s), with Last-Event-ID unset: nothing valid was seen.
        #expect(await eventually(6) { server.streamRequests.count >= 2 })
        #expect(server.documentRequests == 0)
        #expect(client.snapshot.source == before.source && client.snapshot.results == before.results)
        #expect(server.streamRequests.allSatisfy { !$0.lowercased().contains("last-event-id") })
    }

    @Test func theLastEventIDIsSentOnReconnectAndStopEndsTheListener() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 4))
        let first = Array(Self.event(4).utf8)
        server.stream(.drip(head: Self.head, body: first, chunk: first.count, interval: .milliseconds(10)),
                      .drip(head: Self.head, body: Array(": hb\n\n".utf8), chunk: 6, interval: .milliseconds(10)))
        let client = TestClients.make(server, directory)
        client.startListening()
        #expect(client.isListening)
        // `#require`: the next line indexes the second request, which must not crash the whole run when it never came.
        try #require(await eventually(6) { server.streamRequests.count >= 2 })
        // Field names are case-insensitive (FoundationNetworking sends `Last-Event-Id`).
        #expect(server.streamRequests[1].lowercased().contains("last-event-id: 4"))
        client.stopListening(after: .zero)
        #expect(await eventually { !client.isListening })
    }

    @Test func backoffIsJitteredAndGrowsToAMinute() {
        for _ in 0..<100 {
            let first = FlagClient.backoff(failures: 0, retry: .zero)
            #expect(first >= .milliseconds(500) && first <= .seconds(1))
            let many = FlagClient.backoff(failures: 20, retry: .zero)
            #expect(many >= .seconds(30) && many <= .seconds(60))
        }
        #expect(FlagClient.backoff(failures: 0, retry: .seconds(5)) == .seconds(5))
    }
}
