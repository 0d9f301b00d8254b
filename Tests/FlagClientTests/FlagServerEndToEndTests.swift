import FlagKit
import Foundation
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
        let server = try await offPool { try FlagServerProcess(directory: directory) }
        defer { server.stop() }
        let cache = directory.url.appendingPathComponent("app")
        let configuration = TestClients.configuration(server.baseURL, cache, transport: kind)

        // First launch: safe defaults, then the server's version 1 (seeded from flags/production.json). The client
        // asks for gzip and the server sends it (issue #27): the transport decodes, the hash is checked on the result.
        let first = FlagClient(configuration: configuration)
        #expect(first.source == .safeDefaults)
        #expect(await first.refresh() == .updated(version: 1, previousVersion: nil, cacheError: nil))
        let production = try Envelopes.production()
        #expect(first.snapshot.envelope?.document == production)
        #expect(first.snapshot.envelope?.contentHash == production.contentHash, "the server's contentHash is FlagKit's")
        #expect(!first.premiumFeaturesLocked && first.monetizationEnabled)
        #expect(first.introOfferMessage == "Symi ist aktuell für kurze Zeit kostenlos.")

        // Second launch: from the cache before any network, then a 304.
        let second = FlagClient(configuration: configuration)
        #expect(second.launchReport.cache == .loaded(version: 1))
        #expect(second.source.version == 1)
        #expect(await second.refresh() == .notModified(version: 1, cacheError: nil))

        // Ops flip premiumFeaturesLocked on the server; the next refresh sees it.
        let status = try await server.curlPutOffPool("/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        #expect(status == 200)
        #expect(await second.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
        #expect(second.premiumFeaturesLocked)
        #expect(!second.isAvailable("pdfExport", entitled: false) && second.isAvailable("pdfExport", entitled: true))
        #expect(await second.refresh(force: true) == .notModified(version: 2, cacheError: nil))
        // And the first client, which still holds version 1's ETag, gets version 2.
        #expect(await first.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))

        // A rollback on the server publishes version 1's content as version 3: the client takes it (not "older").
        #expect(try await server.curlOffPool("POST", "/v1/environments/production/rollback",
                                             json: #"{"version": 1, "message": "undo the flip"}"#) == 200)
        #expect(await second.refresh(force: true) == .updated(version: 3, previousVersion: 2, cacheError: nil))
        #expect(second.snapshot.envelope?.rolledBackFrom == 1)
        #expect(!second.premiumFeaturesLocked)
    }

    /// A listening app follows a flip within a second, on every transport: the real server's event stream.
    @Test(arguments: TransportKind.allCases)
    func aListeningClientFollowsAFlipWithinASecond(_ kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try FlagServerProcess(directory: directory) }
        defer { server.stop() }
        let client = FlagClient(configuration: TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("app"),
                                                                         transport: kind))
        #expect(await client.refresh() == .updated(version: 1, previousVersion: nil, cacheError: nil))
        #expect(client.showIntroFreeSubscriptionBanner)
        client.startListening()
        defer { client.stopListening(after: .zero) }
        // The stream is open once the server counts it; then ops end the free period.
        #expect(await eventually { (try? server.openStreams()) == 1 })
        let status = try await server.curlPutOffPool("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false")
        #expect(status == 200)
        let flipped = ContinuousClock.now
        #expect(await eventually { !client.showIntroFreeSubscriptionBanner })
        #expect(ContinuousClock.now - flipped < .seconds(1))
        #expect(client.source.version == 2)
    }

    @Test func rolloutAgreesWithTheServersDocumentForTenThousandInstalls() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try FlagServerProcess(directory: directory) }
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
            #expect(mine.premiumFeaturesLocked == serverLocked)
            locked += mine.premiumFeaturesLocked ? 1 : 0
            banner += mine.showIntroFreeSubscriptionBanner ? 1 : 0
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
        let server = try await offPool { try FlagServerProcess(directory: directory) }
        let backup = directory.url.appendingPathComponent("backup.sqlite").path
        _ = try await offPool { try FlagServerProcess.run(try FlagServerProcess.binaryPath(),
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
        #expect(before.premiumFeaturesLocked)
        let oldEpoch = try #require(before.snapshot.envelope?.epoch)
        server.stop()

        let restored = try await offPool {
            try FlagServerProcess.run(try FlagServerProcess.binaryPath(), ["--database", server.database, "restore", "--from", backup])
        }
        #expect(restored.contains("versions production=1,staging=1"), "\(restored)")
        let again = try await offPool { try FlagServerProcess(directory: directory, existingToken: server.token) }
        defer { again.stop() }
        let after = FlagClient(configuration: TestClients.configuration(again.baseURL, cache))
        #expect(after.launchReport.cache == .loaded(version: 4))
        #expect(await after.refresh() == .updated(version: 1, previousVersion: 4, cacheError: nil))
        #expect(!after.premiumFeaturesLocked, "the restored server's document unlocks again")
        #expect(try #require(after.snapshot.envelope?.epoch) > oldEpoch)
        // Publishing on goes on in the new epoch, and the old epoch's version 4 can no longer win.
        #expect(try await again.curlPutOffPool("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false") == 200)
        #expect(await after.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
    }
}

/// The real `flagserver` executable (built next to the test bundle) on 127.0.0.1 port 0.
/// `@unchecked Sendable`: every member is set in `init` and never changed; `Process` is only read after.
final class FlagServerProcess: @unchecked Sendable {
    let baseURL: URL
    let database: String
    let token: String
    private let binary: String
    private let process = Process()

    /// Creates a writer token in a fresh database (or reuses `existingToken` of a database used before), starts the
    /// server over it, waits for its "listening on" line.
    init(directory: TemporaryDirectory, existingToken: String? = nil) throws {
        binary = try Self.binaryPath()
        database = directory.url.appendingPathComponent("flags.sqlite").path
        if let existingToken {
            token = existingToken
        } else {
            let created = try Self.run(binary, ["--database", database, "token", "create", "--name", "t", "--role", "writer"])
            token = try #require(created.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) })
        }
        // The flag documents without `flags/policy/`: these tests flip premiumFeaturesLocked with one writer
        // token, which production's policy would turn into a change request (the governance tests cover that).
        let flags = directory.url.appendingPathComponent("flags")
        if !FileManager.default.fileExists(atPath: flags.path) {
            try FileManager.default.createDirectory(at: flags, withIntermediateDirectories: true)
            for name in ["production.json", "staging.json"] {
                try FileManager.default.copyItem(at: Envelopes.repositoryRoot.appendingPathComponent("flags/\(name)"),
                                                 to: flags.appendingPathComponent(name))
            }
        }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--port", "0", "--database", database, "--flags-dir", flags.path, "--log-level", "warning",
                             "--loops", "1"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
              let url = URL(string: String(line.dropFirst("listening on ".count)) + "/") else {
            process.terminate()
            throw FlagServerStartFailed(output: text)
        }
        baseURL = url
    }

    /// `curl -X PUT` of `json` to `path` with the writer token; returns the HTTP status.
    func curlPut(_ path: String, json: String) throws -> Int {
        try curl("PUT", path, json: json)
    }

    /// `curl -X <method>` of `json` to `path` with the writer token and a change message; returns the HTTP status.
    func curl(_ method: String, _ path: String, json: String) throws -> Int {
        let output = try Self.run("/usr/bin/curl", [
            "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method,
            "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
            "-H", "X-Change-Message: end-to-end test", "--data-binary", json,
            baseURL.absoluteString.dropLast() + path,
        ])
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// ``curlPut(_:json:)`` on a thread of its own.
    func curlPutOffPool(_ path: String, json: String) async throws -> Int {
        try await offPool { [self] in try curlPut(path, json: json) }
    }

    /// ``curl(_:_:json:)`` on a thread of its own.
    func curlOffPool(_ method: String, _ path: String, json: String) async throws -> Int {
        try await offPool { [self] in try curl(method, path, json: json) }
    }

    /// `flagserver_open_streams` from `/metrics`.
    func openStreams() throws -> Int {
        let text = try Self.run("/usr/bin/curl", ["-sS", baseURL.absoluteString + "metrics"])
        let line = text.split(separator: "\n").first { $0.hasPrefix("flagserver_open_streams ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// SIGTERM, then waits for the graceful stop.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    struct FlagServerStartFailed: Error { var output: String }
    struct CommandFailed: Error { var command: [String]; var status: Int32; var output: String }

    /// The binary built by `swift build --build-tests` (the test target depends on it), next to the test runner.
    static func binaryPath() throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("flagserver").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CommandFailed(command: ["flagserver"], status: -1, output: "not found near \(executable)")
    }

    /// Runs a command to completion; its standard output, or an error with it.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CommandFailed(command: [executable] + arguments, status: process.terminationStatus, output: text)
        }
        return text
    }
}
