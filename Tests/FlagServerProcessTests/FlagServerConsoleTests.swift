import FlagService
import FlagServiceTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The `flagserver` executable's console: found in the repository it was built in without an option,
/// `--console-dir` that cannot be loaded stops the start, `off` serves none.
@Suite struct FlagServerConsoleTests {
    static var flagsDirectory: String { repositoryRoot.appendingPathComponent("flags").path }

    @Test func theBuiltBinaryServesTheRepositorysConsoleWithoutAnOption() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FlagServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", Self.flagsDirectory], directory: directory)
        let port = try await server.waitUntilReady()
        let response = try await RawHTTP.request(port: port, method: "GET", path: "/console")
        let script = try await RawHTTP.request(port: port, method: "GET", path: "/console/app.js")
        await server.stop(signal: SIGTERM)
        #expect(response.status == 200)
        #expect(response.header("Content-Security-Policy") == ConsoleAssets.contentSecurityPolicy)
        #expect(response.text.contains("<script type=\"module\" src=\"/console/app.js\">"))
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(server.errors.contains("event=console"))
    }

    @Test func anUnloadableConsoleDirectoryStopsTheStart() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await FlagServerProcess.run(["--port", "0", "--database", "flags.sqlite", "--flags-dir", Self.flagsDirectory,
                                                  "--console-dir", directory + "/nothing"], directory: directory)
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot read console files at \(directory)/nothing"), "\(result.stderr)")
    }

    @Test func offServesNoConsole() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FlagServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", Self.flagsDirectory, "--console-dir=off"],
                                       directory: directory)
        let port = try await server.waitUntilReady()
        let response = try await RawHTTP.request(port: port, method: "GET", path: "/console/")
        await server.stop(signal: SIGTERM)
        #expect(response.status == 404)
    }
}
