import FlagKit
@testable import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import HTTPServer
import TestSupport
import Testing

/// A fresh store in a temporary directory for `body`; closed and removed afterwards.
func withTemporaryStore<T>(_ body: (FlagStore) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try FlagStore.open(location: directory + "/flags.sqlite")
    defer { store.close() }
    return try body(store)
}

/// The same for an `async` body.
func withTemporaryStore<T>(_ body: (FlagStore) async throws -> T) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try FlagStore.open(location: directory + "/flags.sqlite")
    defer { store.close() }
    return try await body(store)
}

/// An in-process server on 127.0.0.1 port 0 over a fresh store seeded from `flags/`, with one token per role.
final class TestServer: @unchecked Sendable {
    let directory: String
    let databasePath: String
    let store: FlagStore
    let service: FlagService
    let server: HTTPServer
    let port: Int
    let writerToken: String
    let readerToken: String
    let adminToken: String
    let logLines = LogLines()

    /// Captured log lines.
    final class LogLines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// The options of a test server: the defaults, but a recorded change's impact measured on 1,000 installs
    /// (tests of the impact itself pass options with the default 100,000), and webhooks allowed to the tests'
    /// receivers on 127.0.0.0/8 (tests of the refusal pass options without).
    static var options: FlagService.Options {
        var options = FlagService.Options()
        options.changeImpactSample = 1_000
        options.webhooks.destinations = .testReceivers
        return options
    }

    init(directory existing: String? = nil, options: FlagService.Options = TestServer.options,
         limits: HTTPServerConfiguration.Limits = HTTPServerConfiguration.Limits(), busyTimeout: Duration = .seconds(5)) throws {
        directory = try existing ?? makeTemporaryDirectory()
        databasePath = directory + "/flags.sqlite"
        let store = try FlagStore.open(location: databasePath, busyTimeout: busyTimeout)
        self.store = store
        let lines = logLines
        let logger = ServiceLogger(minimumLevel: .info) { lines.append($0) }
        try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path, logger: logger)
        let names = Set(try store.listTokens().map(\.name))
        let token = { (name: String, role: TokenRole) throws -> String in
            if names.contains(name) { try store.revokeToken(name: name) }
            return try store.createToken(name: name, role: role).secret
        }
        writerToken = try token("test-writer", TokenRole.writer)
        readerToken = try token("test-reader", .reader)
        adminToken = try token("test-admin", .admin)
        service = try FlagService(store: store, options: options, logger: logger)
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 2, limits: limits),
                            handler: try service.makeRouter())
        service.attach(server)
        port = try server.start()
    }

    /// Stops the server and the writer, closes the store; keeps the directory when `keepFiles`.
    func stop(keepFiles: Bool = false) {
        server.shutdown(gracePeriod: .seconds(2))
        service.shutdown()
        store.close()
        if !keepFiles { try? FileManager.default.removeItem(atPath: directory) }
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: port, method: "GET", path: path, headers: headers)
    }

    /// A write with the writer token, `Content-Type: application/json` and a message unless overridden.
    func write(_ method: String, _ path: String, json: String, token: String? = nil, message: String? = "test change",
               headers: [(String, String)] = [], contentType: String? = "application/json") async throws -> RawHTTPResponse {
        var all = headers
        all.append(("Authorization", "Bearer \(token ?? writerToken)"))
        if let contentType { all.append(("Content-Type", contentType)) }
        if let message { all.append(("X-Change-Message", message)) }
        return try await RawHTTP.request(port: port, method: method, path: path, headers: all, body: Array(json.utf8))
    }

    /// The production document's current ETag.
    func etag(_ environment: String = "production") async throws -> String {
        let response = try await get("/v1/environments/\(environment)/document")
        guard let etag = response.header("ETag") else { throw TestFailure("no ETag on GET (status \(response.status))") }
        return etag
    }

    /// The text of `flags/NAME.json`.
    static func flagFile(_ name: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("flags/\(name).json"), encoding: .utf8)
    }
}

extension TestServer {
    /// Puts the repository's production policy (premiumFeaturesLocked and monetizationEnabled protected) in
    /// force through `PUT .../policy`, as an admin would.
    func protectProduction() async throws {
        let policy = try String(contentsOf: repositoryRoot.appendingPathComponent("flags/policy/production.json"), encoding: .utf8)
        let response = try await write("PUT", "/v1/environments/production/policy", json: policy, token: adminToken, message: nil)
        guard response.status == 200 else { throw TestFailure("PUT policy: \(response.status) \(response.text)") }
    }

    /// A new token named `name` with `role` (and a scope), for a second person, created while the server runs. The
    /// server's token table is reloaded at once, as its periodic reload would within `tokenRefreshInterval`: heads
    /// with a token the table does not know are refused before their body.
    func token(_ name: String, _ role: TokenRole = .writer, environments: Set<String>? = nil) throws -> String {
        let secret = try store.createToken(name: name, role: role, environments: environments).secret
        try service.authenticator.reload()
        return secret
    }

    /// A request with the admin token unless `token` is given (the admin routes: webhooks, tokens), the body as
    /// JSON when given.
    func asAdmin(_ method: String, _ path: String, json: String? = nil, token: String? = nil) async throws -> RawHTTPResponse {
        try await change(method, path, json: json, token: token ?? adminToken)
    }

    /// A request with `token` (a POST or DELETE of a change, `/v1/changes/...`), the body as JSON when given.
    func change(_ method: String, _ path: String, json: String? = nil, token: String) async throws -> RawHTTPResponse {
        var headers = [("Authorization", "Bearer \(token)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await RawHTTP.request(port: port, method: method, path: path, headers: headers, body: json.map { Array($0.utf8) })
    }
}
