import FlagKit
import FlagStore
import Foundation
import Glibc
import Testing

/// Issue #15 against the real `flagserver` process: what a hostile client, network or disk found.
@Suite struct FlagServerHardeningTests {
    static var flagsDirectory: String { repositoryRoot.appendingPathComponent("flags").path }

    /// A started server with a writer token in a fresh directory.
    struct Running {
        let directory: String
        let server: ServerProcess
        let port: Int
        let secret: String

        static func start(_ extra: [String] = []) async throws -> Running {
            let directory = try makeTemporaryDirectory()
            let store = try FlagStore.open(path: directory + "/flags.sqlite")
            let secret = try store.createToken(name: "ops", role: .writer).secret
            store.close()
            let server = try ServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", flagsDirectory] + extra,
                                           directory: directory)
            let port = try await server.waitUntilReady()
            return Running(directory: directory, server: server, port: port, secret: secret)
        }

        func put(_ path: String, _ body: String) async throws -> ClientResponse {
            try await RawHTTP.request(port: port, method: "PUT", path: path,
                                      headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json"),
                                                ("X-Change-Message", "hardening")], body: Array(body.utf8))
        }

        func stop() {
            server.blockingStop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func aTypoInAFlipIsRefusedAndNothingIsPublished() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let typo = try await running.put("/v1/environments/production/flags/premiumFeaturesLokced", "true")
        #expect(typo.status == 422)
        #expect(try typo.json()["error"]?["code"] == "unknown_flag")
        #expect(try typo.json()["error"]?["closest"]?.arrayValue?.first == "premiumFeaturesLocked")
        let document = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/document")
        #expect(try document.json()["version"] == 1)
        #expect(try document.json()["document"]?["flags"]?["premiumFeaturesLokced"] == nil)
        let created = try await running.put("/v1/environments/production/flags/brandNew", #"{"type": "boolean", "default": true}"#)
        #expect(created.status == 200)
    }
}
