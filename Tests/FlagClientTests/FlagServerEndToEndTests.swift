import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
@testable import FlagClient

/// The client against the real `flagserver` binary: a temp SQLite database seeded from the repository's `flags/`,
/// port 0, a writer token made with `flagserver token create`, flips with `curl -X PUT`.
@Suite(.serialized) struct FlagServerEndToEndTests {
    /// The whole app flow on every transport of the build (libcurl and URLSession here, URLSession alone in the
    /// `FLAGCLIENT_TRANSPORT=urlsession` build).
    @Test(arguments: TransportKind.allCases)
    func launchRefreshFlipAndNotModified(_ kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try SeededFlagServer(directory: directory) }
        defer { server.stop() }
        let cache = directory.url.appendingPathComponent("app")
        let configuration = TestClients.configuration(server.baseURL, cache, transport: kind)

        // First launch: safe defaults, then the server's version 1 (seeded from flags/production.json). The client
        // asks for gzip and the server sends it: the transport decodes, the hash is checked on the result.
        let first = FlagClient(configuration: configuration)
        #expect(first.source == .safeDefaults)
        #expect(await first.refresh() == .updated(version: 1, previousVersion: nil, cacheError: nil))
        let production = try Envelopes.production()
        #expect(first.snapshot.envelope?.document == production)
        #expect(first.snapshot.envelope?.contentHash == production.contentHash, "the server's contentHash is FlagKit's")
        #expect(!first.symi.premiumFeaturesLocked && first.symi.monetizationEnabled)
        #expect(first.symi.introOfferMessage == "Symi ist aktuell für kurze Zeit kostenlos.")

        // Second launch: from the cache before any network, then a 304.
        let second = FlagClient(configuration: configuration)
        #expect(second.launchReport.cache == .loaded(version: 1))
        #expect(second.source.version == 1)
        #expect(await second.refresh() == .notModified(version: 1, cacheError: nil))

        // Ops flip premiumFeaturesLocked on the server; the next refresh sees it.
        let status = try await server.curlPutOffPool("/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        #expect(status == 200)
        #expect(await second.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
        #expect(second.symi.premiumFeaturesLocked)
        #expect(!second.symi.isAvailable("pdfExport", entitled: false) && second.symi.isAvailable("pdfExport", entitled: true))
        #expect(await second.refresh(force: true) == .notModified(version: 2, cacheError: nil))
        // And the first client, which still holds version 1's ETag, gets version 2.
        #expect(await first.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))

        // A rollback on the server publishes version 1's content as version 3: the client takes it (not "older").
        #expect(try await server.curlOffPool("POST", "/v1/environments/production/rollback",
                                             json: #"{"version": 1, "message": "undo the flip"}"#) == 200)
        #expect(await second.refresh(force: true) == .updated(version: 3, previousVersion: 2, cacheError: nil))
        #expect(second.snapshot.envelope?.rolledBackFrom == 1)
        #expect(!second.symi.premiumFeaturesLocked)
    }

    /// A listening app follows a flip within a second, on every transport: the real server's event stream.
    @Test(arguments: TransportKind.allCases)
    func aListeningClientFollowsAFlipWithinASecond(_ kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try SeededFlagServer(directory: directory) }
        defer { server.stop() }
        let client = FlagClient(configuration: TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("app"),
                                                                         transport: kind))
        #expect(await client.refresh() == .updated(version: 1, previousVersion: nil, cacheError: nil))
        #expect(client.symi.showIntroFreeSubscriptionBanner)
        client.startListening()
        defer { client.stopListening(after: .zero) }
        // The stream is open once the server counts it; then ops end the free period.
        #expect(await eventually { (try? server.openStreams()) == 1 })
        let status = try await server.curlPutOffPool("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false")
        #expect(status == 200)
        let flipped = ContinuousClock.now
        #expect(await eventually { !client.symi.showIntroFreeSubscriptionBanner })
        #expect(ContinuousClock.now - flipped < .seconds(1))
        #expect(client.source.version == 2)
    }

    @Test func rolloutAgreesWithTheServersDocumentForTenThousandInstalls() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try SeededFlagServer(directory: directory) }
        defer { server.stop() }
        let definition = """
            {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true},
             "rules": [{"cohort": "internal", "value": true}, {"value": true, "rollout": 37.5}]}
            """
        #expect(try await server.curlPutOffPool("/v1/environments/production/flags/premiumFeaturesLocked", json: definition) == 200)
        #expect(try await server.curlPutOffPool("/v1/environments/production/flags/showIntroFreeSubscriptionBanner",
                                   json: #"{"type": "boolean", "default": true, "rules": [{"value": false, "rollout": 50}]}"#) == 200)

        let client = FlagClient(configuration: TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("app")))
        #expect(await client.refresh() == .updated(version: 3, previousVersion: nil, cacheError: nil))

        // The server's document, fetched separately and decoded with FlagKit directly (not through FlagEnvelope).
        let response = try await TransportKind.platformDefault.makeTransport().send(ClientRequest(url: client.configuration.documentURL))
        let root = try #require(try JSONParser.parse(response.body).value.objectValue)
        let serverDocument = try FlagDocument(validating: try #require(root["document"]))
        #expect(root["version"] == 3)

        var locked = 0, banner = 0
        for index in 0..<10_000 {
            let installId = String(format: "%08X-0000-4000-8000-%012X", UInt32(truncatingIfNeeded: index &* 2_654_435_761), index)
            let context = TestClients.germanApp.evaluationContext(installId: installId)
            let mine = client.snapshot.evaluated(for: context)
            for key in serverDocument.flags.keys {
                let theirs = serverDocument.evaluate(key, context: context, version: 3)
                if mine.result(key) != theirs { Issue.record("\(key) for \(installId): \(mine.result(key)) vs \(theirs)") }
            }
            let serverLocked = serverDocument.evaluate("premiumFeaturesLocked", context: context).value == true
            #expect(mine.symi.premiumFeaturesLocked == serverLocked)
            locked += mine.symi.premiumFeaturesLocked ? 1 : 0
            banner += mine.symi.showIntroFreeSubscriptionBanner ? 1 : 0
        }
        // The rollouts really split the installs (bucketing is uniform; ±2 % is many standard deviations).
        #expect((3550...3950).contains(locked), "\(locked) of 10,000 locked at 37.5 %")
        #expect((4800...5200).contains(banner), "\(banner) of 10,000 see the banner at 50 %")
    }
}

extension FlagServerEndToEndTests {
    /// A server restored from an older backup has lower version numbers than an install saw. The restore starts a
    /// new epoch, so the install that holds the later, LOCKED version takes the restored (unlocked) document
    /// instead of refusing it as older forever; a stale document of the old epoch is still refused.
    @Test func aRestoredServerReachesInstallsThatSawLaterVersions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try SeededFlagServer(directory: directory) }
        let backup = directory.url.appendingPathComponent("backup.sqlite").path
        _ = try await offPool { try SeededFlagServer.run(try FlagServerProcess.binaryPath(),
                                                          ["--database", server.database, "backup", "--to", backup]) }
        // Version 2 locks everything for everyone; versions 3 and 4 change a message.
        #expect(try await server.curlPutOffPool("/v1/environments/production/flags/premiumFeaturesLocked",
                                                json: #"{"type": "boolean", "default": true}"#) == 200)
        for text in ["Symi ist gerade kostenlos.", "Symi ist noch kostenlos."] {
            #expect(try await server.curlPutOffPool("/v1/environments/production/flags/introOfferMessage", json: "\"\(text)\"") == 200)
        }
        let cache = directory.url.appendingPathComponent("app")
        let before = FlagClient(configuration: TestClients.configuration(server.baseURL, cache))
        #expect(await before.refresh() == .updated(version: 4, previousVersion: nil, cacheError: nil))
        #expect(before.symi.premiumFeaturesLocked)
        let oldEpoch = try #require(before.snapshot.envelope?.epoch)
        server.stop()

        let restored = try await offPool {
            try SeededFlagServer.run(try FlagServerProcess.binaryPath(), ["--database", server.database, "restore", "--from", backup])
        }
        #expect(restored.contains("versions production=1,staging=1"), "\(restored)")
        let again = try await offPool { try SeededFlagServer(directory: directory, existingToken: server.writerToken) }
        defer { again.stop() }
        let after = FlagClient(configuration: TestClients.configuration(again.baseURL, cache))
        #expect(after.launchReport.cache == .loaded(version: 4))
        #expect(await after.refresh() == .updated(version: 1, previousVersion: 4, cacheError: nil))
        #expect(!after.symi.premiumFeaturesLocked, "the restored server's document unlocks again")
        #expect(try #require(after.snapshot.envelope?.epoch) > oldEpoch)
        // Publishing on goes on in the new epoch, and the old epoch's version 4 can no longer win.
        #expect(try await again.curlPutOffPool("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false") == 200)
        #expect(await after.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
    }
}
