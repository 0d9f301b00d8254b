import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import RawHTTPClient
import TestSupport
import Testing

/// `/readyz` of the real `flagserver` whose database sits on a file system that fails as disks do: an ext4
/// the kernel remounts read-only after an error (`errors=remount-ro`), and a tmpfs that fills up. Reads go on;
/// readiness says writes cannot commit; the full disk recovers once space is freed.
@Suite(.serialized, .enabled(if: MountedFilesystem.available, "needs root and mount(8) for a loop-mounted ext4 and a tmpfs"))
struct FlagServerFilesystemTests {
    static let flip = "/v1/environments/production/flags/showIntroFreeSubscriptionBanner"

    /// A server on a database in `directory`, with a writer token.
    static func start(in directory: String) async throws -> (FlagServerProcess, Int, String) {
        let store = try FlagStore.open(location: directory + "/flags.sqlite")
        let secret = try store.createToken(name: "ops", role: .writer).secret
        store.close()
        let server = try FlagServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", FlagServerHostileInputTests.flagsDirectory],
                                       directory: directory)
        return (server, try await server.waitUntilReady(), secret)
    }

    static func put(_ port: Int, _ secret: String, _ path: String, _ body: String) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: port, method: "PUT", path: path,
                                  headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json"),
                                            ("X-Change-Message", "filesystem test")], body: Array(body.utf8))
    }

    static func readiness(_ port: Int) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: port, method: "GET", path: "/readyz")
    }

    @Test func aDiskRemountedReadOnlyMakesTheServerNotReadyAndReadsGoOn() async throws {
        let filesystem = try MountedFilesystem.ext4(mebibytes: 16)
        defer { filesystem.unmount() }
        let (server, port, secret) = try await Self.start(in: filesystem.mountPoint)
        defer { server.blockingStop(signal: SIGKILL) }
        #expect(try await Self.put(port, secret, Self.flip, "false").status == 200)
        #expect(try await Self.readiness(port).status == 200)

        try filesystem.triggerExt4Error()
        #expect(filesystem.isReadOnly, "the kernel remounted the file system read-only")
        let refused = try await Self.put(port, secret, Self.flip, "true")
        #expect(refused.status == 500, "\(refused.text)")
        #expect(try refused.errorCode() == "storage_error", "an I/O failure (api.md), the cause in the server log")
        let degraded = try await Self.readiness(port)
        #expect(degraded.status == 503)
        #expect(try degraded.json()["reads"] == "ok")
        #expect(try degraded.json()["writes"] == "failing")
        #expect(try degraded.errorCode() == "writes_failing")
        #expect(degraded.header("Retry-After") != nil)
        let document = try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/document")
        #expect(document.status == 200)
        #expect(try document.json()["version"] == 2, "the last committed version is still served")
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/healthz").status == 200, "alive, only not ready")
    }

    @Test func aFullDiskMakesTheServerNotReadyUntilSpaceIsFreed() async throws {
        let filesystem = try MountedFilesystem.tmpfs(kibibytes: 16 * 1024)
        defer { filesystem.unmount() }
        let (server, port, secret) = try await Self.start(in: filesystem.mountPoint)
        defer { server.blockingStop() }
        #expect(try await Self.readiness(port).status == 200)

        let filler = try filesystem.fill()
        // A large flag makes the write-ahead log grow: it cannot reuse the pages it already has.
        let description = String(repeating: "d", count: 400 * 1024)
        let big = #"{"type": "boolean", "default": false, "description": "\#(description)"}"#
        let refused = try await Self.put(port, secret, "/v1/environments/production/flags/bigFlag", big)
        #expect(refused.status == 500, "\(refused.text)")
        let degraded = try await Self.readiness(port)
        #expect(degraded.status == 503)
        #expect(try degraded.json()["writes"] == "failing")
        #expect(try degraded.json()["writeError"]?.stringValue?.isEmpty == false)
        #expect(try await RawHTTP.request(port: port, method: "GET", path: "/v1/environments/production/document").status == 200)

        try FileManager.default.removeItem(atPath: filler)
        // The space is the kernel's to give back: the write is tried until it commits, within a wide safety net.
        var accepted = try await Self.put(port, secret, "/v1/environments/production/flags/bigFlag", big)
        let deadline = ContinuousClock.now + .seconds(20)
        while accepted.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            accepted = try await Self.put(port, secret, "/v1/environments/production/flags/bigFlag", big)
        }
        #expect(accepted.status == 200, "\(accepted.text); \(filesystem.freeBytes) bytes free")
        let ready = try await Self.readiness(port)
        #expect(ready.status == 200, "ready again once a write commits: \(ready.text)")
    }
}
