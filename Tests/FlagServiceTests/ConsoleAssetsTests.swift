import FlagKit
import FlagService
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing

/// The console's files over real HTTP: types, the security headers, 404s, and no way out of the table.
@Suite struct ConsoleAssetsTests {
    static let directory = repositoryRoot.appendingPathComponent("console").path

    static func server() throws -> TestServer {
        var options = FlagService.Options()
        options.console = try ConsoleAssets(directory: directory)
        return try TestServer(options: options)
    }

    static func expectSecurityHeaders(_ response: RawHTTPResponse, _ path: String) {
        #expect(response.header("Content-Security-Policy") == ConsoleAssets.contentSecurityPolicy, "\(path)")
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
    }

    @Test func servesTheFilesWithTheirTypesAndAStrictPolicy() async throws {
        let server = try Self.server()
        defer { server.stop() }
        #expect(ConsoleAssets.contentSecurityPolicy
                == "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
        let index = try String(contentsOfFile: Self.directory + "/index.html", encoding: .utf8)
        for path in ["/console", "/console/", "/console/index.html"] {
            let response = try await server.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text == index)
            Self.expectSecurityHeaders(response, path)
        }
        for (path, type) in [("/console/app.js", "text/javascript; charset=utf-8"), ("/console/console.css", "text/css; charset=utf-8"),
                             ("/console/icon.svg", "image/svg+xml")] {
            let response = try await server.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.header("Content-Type") == type, "\(path)")
            Self.expectSecurityHeaders(response, path)
        }
        // No inline script or style for the policy to have to allow.
        #expect(!index.contains("<style"))
        #expect(!index.contains("style="))
        #expect(!index.contains("<script>"))
    }

    @Test(arguments: ["/console/nothing.js", "/console/../Package.swift", "/console/..%2FPackage.swift", "/console/%2e%2e%2fPackage.swift",
                      "/console/.hidden", "/console/app.js/x", "/console//etc/passwd"])
    func unknownPathsAreNotFoundAndNeverReachTheDisk(path: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let response = try await server.get(path)
        #expect(response.status == 404 || response.status == 400, "\(path): \(response.status)")
        #expect(!response.text.contains("PackageDescription"), "\(path)")
        #expect(!response.text.contains("root:"), "\(path)")
        // One segment after /console/ reaches the console's table (and gets its headers); more are the router's 404.
        if path.filter({ $0 == "/" }).count == 2 {
            #expect(response.status == 404)
            Self.expectSecurityHeaders(response, path)
        }
    }

    @Test func withoutAConsoleItSaysHowToGetOne() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.get("/console")
        #expect(response.status == 404)
        #expect(try response.json()["error"]?["message"]?.stringValue?.contains("--console-dir") == true)
    }

    @Test func refusesADirectoryWithoutIndexOrUnreadable() throws {
        let empty = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: ConsoleAssetsError.noIndex(path: empty)) { try ConsoleAssets(directory: empty) }
        #expect(throws: ConsoleAssetsError.self) { try ConsoleAssets(directory: empty + "/missing") }
        try Data("x".utf8).write(to: URL(fileURLWithPath: empty + "/index.html"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: empty + "/.env"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: empty + "/notes.txt"))
        let assets = try ConsoleAssets(directory: empty)
        #expect(assets.fileNames == ["index.html"], "hidden files and unknown types are not served")
    }

    @Test func isFoundBesideAnInstalledBinaryAndInTheRepositoryOfABuiltOne() {
        let built = ConsoleAssets.defaultCandidates(executable: repositoryRoot.path + "/.build/x86_64-unknown-linux-gnu/debug/flagserver",
                                                    workingDirectory: "/")
        #expect(ConsoleAssets.locate(built) == Self.directory)
        let installed = ConsoleAssets.defaultCandidates(executable: "/usr/local/bin/flagserver", workingDirectory: "/srv")
        #expect(installed.first == "/usr/local/share/flagserver/console")
        #expect(installed.last == "/srv/console")
    }
}
