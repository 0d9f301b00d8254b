import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The event bytes and the subscriber table, without sockets.
@Suite struct EventHubTests {
    /// The seeded production snapshot, built without a server.
    static func production() throws -> Snapshot {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FlagStore.open(location: directory + "/s.sqlite")
        defer { store.close() }
        try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path,
                             logger: ServiceLogger(minimumLevel: .error))
        return try Snapshot(record: try #require(try store.currentVersion(environment: "production")))
    }

    @Test func anEventIsItsVersionAsIDAndTheRefetchJSONOnOneDataLine() throws {
        let snapshot = try Self.production()
        let text = String(decoding: EventHub.event(snapshot), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)  // id, data, the blank line that dispatches it, and nothing after
        #expect(lines[0] == "id: \(snapshot.version)")
        #expect(lines[2].isEmpty && lines[3].isEmpty)
        let data = try JSONParser.parse(Array(lines[1].dropFirst("data: ".count).utf8)).value
        #expect(data.objectValue?["type"] == .string("refetchEvaluation"))
        #expect(data.objectValue?["etag"] == .string(snapshot.etag))
        #expect(data.objectValue?["lastModified"]?.integerValue == snapshot.record.createdAtMilliseconds / 1000)
    }

    @Test func thePreambleSetsRetryWithoutAnEventAndTheHeartbeatIsAComment() {
        let hub = EventHub(retryMilliseconds: 1500)
        #expect(String(decoding: hub.preamble, as: UTF8.self) == ": events\nretry: 1500\n\n")
        #expect(String(decoding: EventHub.heartbeat, as: UTF8.self) == ": heartbeat\n\n")
    }

    @Test func anEnvironmentWithoutSubscribersCountsNone() throws {
        let hub = EventHub()
        hub.publish(try Self.production())
        #expect(hub.subscriberCount("production") == 0)
    }
}
