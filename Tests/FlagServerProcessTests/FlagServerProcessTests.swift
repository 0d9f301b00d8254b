import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import RawHTTPClient
import TestSupport
import Testing

/// The `flagserver` executable as a process: start, admin subcommands, SIGTERM, SIGKILL, bad databases.
@Suite struct FlagServerProcessTests {
    static var flagsDirectory: String { repositoryRoot.appendingPathComponent("flags").path }

    @Test func startsOnPortZeroSeedsServesAndStopsOnSIGTERM() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FlagServerProcess(["--port", "0", "--database", "db/flags.sqlite", "--flags-dir", Self.flagsDirectory],
                                       directory: directory)
        let port = try await server.waitUntilReady()
        let response = try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/document")
        #expect(response.status == 200)
        #expect(try response.json()["version"] == 1)
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/staging/document").status == 200)
        await server.stop(signal: SIGTERM)
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0)
        #expect(server.errors.contains("event=stopping signal=SIGTERM"))
        #expect(server.errors.contains("event=stopped"))
        #expect(FileManager.default.fileExists(atPath: directory + "/db/flags.sqlite"))
    }

    @Test func defaultsUseDataDirectoryAndFlagsDirectoryOfTheWorkingDirectory() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: Self.flagsDirectory, toPath: directory + "/flags")
        // Port 0 is the only deviation from the defaults: fixed ports are not allowed in tests.
        let server = try FlagServerProcess(["--port", "0"], directory: directory)
        let port = try await server.waitUntilReady()
        #expect(server.output.contains("listening on http://127.0.0.1:\(port)"))
        await server.stop(signal: SIGINT)
        #expect(server.process.terminationStatus == 0)
        let store = try FlagStore.open(location: directory + "/data/flags.sqlite")
        #expect(try store.currentVersion(environment: "production")?.number == 1)
        store.close()
    }

    @Test func tokenSubcommandsCreateListAndRevoke() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let created = try await FlagServerProcess.run(["token", "create", "--name", "ops", "--role", "writer", "--database", "t.sqlite"],
                                            directory: directory)
        #expect(created.status == 0)
        let secret = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("sfl_") }.map(String.init))
        let server = try FlagServerProcess(["--port", "0", "--database", "t.sqlite", "--flags-dir", Self.flagsDirectory],
                                       directory: directory)
        defer { server.blockingStop() }
        let port = try await server.waitUntilReady()
        let put = { () async throws -> Int in
            try await RawHTTP.request(port: port, method: "PUT", path: "/v1/environments/production/flags/showIntroFreeSubscriptionBanner",
                                headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json"),
                                          ("X-Change-Message", "cli token")], body: Array("false".utf8)).status
        }
        #expect(try await put() == 200)
        let list = try await FlagServerProcess.run(["--database", "t.sqlite", "token", "list"], directory: directory)
        #expect(list.status == 0)
        #expect(list.stdout.contains("ops\twriter"))
        #expect(!list.stdout.contains(secret))
        let revoked = try await FlagServerProcess.run(["token", "revoke", "--name", "ops", "--database", "t.sqlite"], directory: directory)
        #expect(revoked.status == 0)
        #expect(try await put() == 401)
        let bad = try await FlagServerProcess.run(["token", "create", "--name", "x", "--role", "god", "--database", "t.sqlite"], directory: directory)
        #expect(bad.status == 64, "a usage error is EX_USAGE")
        #expect(bad.stderr.contains("--role"))
        let backup = try await FlagServerProcess.run(["backup", "--to", "copy.sqlite", "--database", "t.sqlite"], directory: directory)
        #expect(backup.status == 0)
        let copy = try FlagStore.open(location: directory + "/copy.sqlite")
        #expect(try copy.currentVersion(environment: "production")?.number == 2)
        copy.close()
    }

    @Test func sigkillInTheMiddleOfPublishesLosesNoAcknowledgedVersion() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/crash.sqlite"
        let store = try FlagStore.open(location: database)
        let secret = try store.createToken(name: "crash", role: .writer).secret
        store.close()
        let arguments = ["--port", "0", "--database", database, "--flags-dir", Self.flagsDirectory, "--log-level", "warning"]
        let server = try FlagServerProcess(arguments, directory: directory)
        let port = try await server.waitUntilReady()

        final class Acks: @unchecked Sendable {
            let lock = NSLock()
            var versions: [(number: Int64, hash: String)] = []
            var stop = false
        }
        let acks = Acks()
        let writers = (0..<4).map { writer in
            Thread {
                var index = 0
                while !acks.lock.withLock({ acks.stop }) {
                    index += 1
                    guard let response = try? RawHTTP.blockingRequest(
                        port: port, method: "PUT", path: "/v1/environments/production/flags/crash\(writer)",
                        headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json"),
                                  ("X-Change-Message", "crash test")],
                        body: Array(#"{"type": "integer", "default": \#(index)}"#.utf8), timeoutSeconds: 5)
                    else { return }
                    if response.status == 200, let body = try? response.json(), let number = body["version"]?.integerValue,
                       let hash = body["contentHash"]?.stringValue {
                        acks.lock.withLock { acks.versions.append((number, hash)) }
                    }
                }
            }
        }
        writers.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(60)
        while acks.lock.withLock({ acks.versions.count }) < 60 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        // Writes are in flight at this moment: four writers keep the queue busy.
        await server.stop(signal: SIGKILL)
        acks.lock.withLock { acks.stop = true }
        #expect(server.process.terminationReason == .uncaughtSignal)
        let acknowledged = acks.lock.withLock { acks.versions }
        #expect(acknowledged.count >= 60)

        let checkOutput = directory + "/integrity-check.txt"
        #expect(try SpawnedProcess.run("/usr/bin/sqlite3", [database, "PRAGMA integrity_check"], stdout: checkOutput) == 0)
        #expect(try String(contentsOfFile: checkOutput, encoding: .utf8) == "ok\n")

        let restarted = try FlagServerProcess(arguments, directory: directory)
        defer { restarted.blockingStop() }
        let newPort = try await restarted.waitUntilReady()
        for ack in acknowledged {
            let response = try await RawHTTP.request(port: newPort, method: "GET", path: "/v1/environments/production/versions/\(ack.number)")
            #expect(response.status == 200, "acknowledged version \(ack.number) missing")
            #expect(try response.json()["contentHash"]?.stringValue == ack.hash)
        }
        let current = try await RawHTTP.request(port: newPort, method: "GET", path: "/v1/environments/production/document").json()
        #expect(current["version"]?.integerValue ?? 0 >= acknowledged.map(\.number).max() ?? 0)
        // Nothing half-written: the served current document is valid and hashes to its stored hash.
        let document = try #require(current["document"])
        #expect(throws: Never.self) { try FlagDocument(validating: document) }
        #expect(current["contentHash"]?.stringValue == SHA256.hexDigest(document.canonicalBytes))
    }

    @Test func corruptedDatabaseIsAClearErrorNotACrash() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbage = (0..<16384).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        _ = FileManager.default.createFile(atPath: directory + "/bad.sqlite", contents: Data(garbage))
        let result = try await FlagServerProcess.run(["--port", "0", "--database", "bad.sqlite", "--flags-dir", Self.flagsDirectory],
                                           directory: directory)
        #expect(!result.signaled)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("flagserver: error: "))
        #expect(result.stderr.contains("bad.sqlite"))
        #expect(result.stderr.contains("not a usable SQLite database"))
        #expect(!result.stdout.contains("listening"))

        // A real database whose pages were overwritten in the middle.
        let store = try FlagStore.open(location: directory + "/damaged.sqlite")
        for index in 0..<200 {
            _ = try store.publish(environment: "staging", document: Array("{\"flags\":{\"f\(index)\":{\"type\":\"boolean\",\"default\":true}}}".utf8),
                                  author: "t", message: String(repeating: "m", count: 500))
        }
        store.close()
        // Move everything from the WAL into the main file, so the damage below hits live pages.
        #expect(try SpawnedProcess.run("/usr/bin/sqlite3", [directory + "/damaged.sqlite", "PRAGMA wal_checkpoint(TRUNCATE)"]) == 0)
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/damaged.sqlite"))
        try handle.seek(toOffset: 4096 * 3)
        handle.write(Data(repeating: 0xA5, count: 4096 * 4))
        try handle.close()
        let damaged = try await FlagServerProcess.run(["--port", "0", "--database", "damaged.sqlite", "--flags-dir", Self.flagsDirectory],
                                            directory: directory)
        #expect(!damaged.signaled)
        #expect(damaged.status == 1)
        #expect(damaged.stderr.hasPrefix("flagserver: error: "), "\(damaged.stderr)")
        #expect(damaged.stderr.split(separator: "\n").count <= 2)
    }

    @Test func unwritableDatabasePathIsAClearError() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/plainfile", contents: Data("x".utf8))
        for path in ["plainfile/flags.sqlite", "/proc/flagserver-test/flags.sqlite", directory] {
            let result = try await FlagServerProcess.run(["--port", "0", "--database", path, "--flags-dir", Self.flagsDirectory],
                                               directory: directory)
            #expect(!result.signaled, "\(path)")
            #expect(result.status == 1, "\(path)")
            #expect(result.stderr.hasPrefix("flagserver: error: "), "\(path): \(result.stderr)")
            #expect(result.stderr.contains("database") || result.stderr.contains("directory"), "\(path): \(result.stderr)")
        }
    }

    @Test func invalidFlagFileRefusesToStartAndPublishesNothing() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/flags", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.flagsDirectory + "/production.json", toPath: directory + "/flags/production.json")
        try #"{"flags": {"x": {"type": "boolean", "default": "no"}}}"#.write(toFile: directory + "/flags/staging.json",
                                                                              atomically: true, encoding: .utf8)
        let result = try await FlagServerProcess.run(["--port", "0", "--database", "f.sqlite"], directory: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("staging.json is not a valid flag document"))
        #expect(result.stderr.contains("/flags/x/default"))
        let store = try FlagStore.open(location: directory + "/f.sqlite")
        #expect(try store.currentVersion(environment: "production") == nil)
        store.close()
    }

    @Test func aPortInUseIsRefusedEvenThoughTheServerUsesSOREUSEPORT() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try FlagServerProcess(["--port", "0", "--database", "a.sqlite", "--flags-dir", Self.flagsDirectory],
                                      directory: directory)
        defer { first.blockingStop() }
        let port = try await first.waitUntilReady()
        let second = try await FlagServerProcess.run(["--port", "\(port)", "--database", "b.sqlite", "--flags-dir", Self.flagsDirectory],
                                                 directory: directory)
        #expect(second.status == 1)
        #expect(second.stderr.contains("port \(port) on 127.0.0.1 is already in use"))
    }

    @Test func helpAndUsageErrors() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let help = try await FlagServerProcess.run(["--help"], directory: directory)
        #expect(help.status == 0)
        for option in ["--host", "--port", "--database", "--flags-dir", "--loops", "--log-level", "--require-read-token",
                       "FLAGSERVER_HOST", "token create", "--max-buffered-body-bytes", "FLAGSERVER_MAX_BUFFERED_BODY_BYTES"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
        let unknown = try await FlagServerProcess.run(["--prot", "1"], directory: directory)
        #expect(unknown.status == 64, "a usage error is EX_USAGE")
        #expect(unknown.stderr.contains("unknown option '--prot'"))
        #expect(unknown.stderr.contains("\nUsage: flagserver [<options>]\nSee 'flagserver --help'.\n"))
        #expect(try await FlagServerProcess.run(["--port", "70000"], directory: directory).status == 64)
        #expect(try await FlagServerProcess.run(["--log-level", "loud"], directory: directory).status == 64)
    }

    @Test func eventStreamsGetHeartbeatsAndEndWithTheLastChunkOnSIGTERM() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FlagServerProcess(["--port", "0", "--database", "e.sqlite", "--flags-dir", Self.flagsDirectory,
                                        "--event-heartbeat", "1", "--max-streams", "1"], directory: directory)
        defer { server.blockingStop() }
        let port = try await server.waitUntilReady()
        let (client, head) = try await offPool { try RawClient.openStream(port: port, path: "/v1/environments/production/events") }
        #expect(head?.status == 200)
        let start = ContinuousClock.now
        let (preamble, heartbeat) = try await offPool { (try client.readChunk(), try client.readChunk()) }
        #expect(preamble.map { String(decoding: $0, as: UTF8.self) }?.contains("retry: 3000") == true)
        #expect(heartbeat == Array(": heartbeat\n\n".utf8))
        // The 1 s asked for, not the default 25 s: with the default no heartbeat comes before the read gives up (10 s) and
        // the read throws. The time is only a safety net.
        #expect(ContinuousClock.now - start < .seconds(20))
        // --max-streams 1: a second stream is refused.
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/events").status == 503)
        server.process.terminate()
        let ending = try await offPool { () throws -> [UInt8]? in
            while let chunk = try client.readChunk() { if chunk.isEmpty { return chunk } }
            return nil
        }
        #expect(ending == [], "the body ends with the last chunk, not a cut connection")
        await server.stop(signal: SIGTERM)
        #expect(server.process.terminationStatus == 0)
    }
}
