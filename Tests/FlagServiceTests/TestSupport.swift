import FlagKit
@testable import FlagService
import FlagStore
import Foundation
import Glibc
import HTTPServer
import Testing

/// A failure of the test client or fixture, with what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One response as the raw-socket client read it.
struct ClientResponse: Sendable {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (fails the test when it is not).
    func json() throws -> JSONValue {
        do {
            return try JSONParser.parse(body).value
        } catch {
            throw TestFailure("body is not JSON (\(error)): \(text)")
        }
    }

    /// `body.error.code`.
    func errorCode() throws -> String? {
        try json().objectValue?["error"]?.objectValue?["code"]?.stringValue
    }
}

/// A tiny HTTP/1.1 client over a raw socket: one request per connection (`Connection: close`), reads to EOF.
/// Real bytes on a real socket, so the server's framing, headers and limits are what is tested.
enum RawHTTP {
    /// The request on a thread of its own, so tests never block Swift's cooperative pool (other suites'
    /// `Task`s, such as HTTPServer's async handlers, run on it in the same process).
    static func request(port: Int, method: String, path: String, headers: [(String, String)] = [],
                        body: [UInt8]? = nil, timeoutSeconds: Int = 20) async throws -> ClientResponse {
        try await offPool {
            try blockingRequest(port: port, method: method, path: path, headers: headers, body: body, timeoutSeconds: timeoutSeconds)
        }
    }

    static func blockingRequest(port: Int, method: String, path: String, headers: [(String, String)] = [],
                                body: [UInt8]? = nil, timeoutSeconds: Int = 20) throws -> ClientResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let raw = try exchange(port: port, bytes: Array(head.utf8) + (body ?? []), timeoutSeconds: timeoutSeconds)
        return try parse(raw, method: method)
    }

    /// Sends `bytes` and returns everything the server sends until it closes.
    static func exchange(port: Int, bytes: [UInt8], timeoutSeconds: Int = 20) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect to \(port): errno \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may refuse early (413) and close; read what it said
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received.append(contentsOf: buffer[0..<n])
            } else if n == 0 || errno != EINTR {
                break
            }
        }
        return received
    }

    static func parse(_ raw: [UInt8], method: String) throws -> ClientResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw TestFailure("no complete response head in \(raw.count) bytes: \(String(decoding: raw, as: UTF8.self))")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestFailure("bad status line \(lines[0])") }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(raw[(end + 4)...])
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }),
           method != "HEAD", body.count > length {
            body = Array(body.prefix(length))
        }
        if method == "HEAD" { body = [] }
        return ClientResponse(status: status, headers: headers, body: body)
    }
}

/// Runs blocking `body` on a new thread and awaits its result without holding a cooperative thread.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Calls `condition` every `interval` until it holds or `timeout` passes; true when it held. For what a test waits for
/// (a node installing a version, a lease moving), instead of a fixed sleep that is too short on a loaded machine and
/// too long elsewhere.
func eventually(within timeout: Duration, every interval: Duration = .milliseconds(20),
                _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// `eventually` for a test that blocks its thread (no `await`).
func poll(within timeout: Duration, every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
    return try condition()
}

/// The repository root (for `flags/*.json`), from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A fresh temporary directory, removed by `cleanup`.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "flagservice-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A fresh store in a temporary directory for `body`; closed and removed afterwards.
func withTemporaryStore<T>(_ body: (FlagStore) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try FlagStore.open(path: directory + "/flags.sqlite")
    defer { store.close() }
    return try body(store)
}

/// The same for an `async` body.
func withTemporaryStore<T>(_ body: (FlagStore) async throws -> T) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try FlagStore.open(path: directory + "/flags.sqlite")
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
    /// (tests of the impact itself pass options with the default 100,000).
    static var options: FlagService.Options {
        var options = FlagService.Options()
        options.changeImpactSample = 1_000
        return options
    }

    init(directory existing: String? = nil, options: FlagService.Options = TestServer.options,
         limits: HTTPServerConfiguration.Limits = HTTPServerConfiguration.Limits(), busyTimeout: Duration = .seconds(5)) throws {
        directory = try existing ?? makeTemporaryDirectory()
        databasePath = directory + "/flags.sqlite"
        let store = try FlagStore.open(path: databasePath, busyTimeout: busyTimeout)
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

    func get(_ path: String, headers: [(String, String)] = []) async throws -> ClientResponse {
        try await RawHTTP.request(port: port, method: "GET", path: path, headers: headers)
    }

    /// A write with the writer token, `Content-Type: application/json` and a message unless overridden.
    func write(_ method: String, _ path: String, json: String, token: String? = nil, message: String? = "test change",
               headers: [(String, String)] = [], contentType: String? = "application/json") async throws -> ClientResponse {
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

extension JSONValue {
    /// `self[key]` for objects.
    subscript(key: String) -> JSONValue? { objectValue?[key] }
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
    func asAdmin(_ method: String, _ path: String, json: String? = nil, token: String? = nil) async throws -> ClientResponse {
        try await change(method, path, json: json, token: token ?? adminToken)
    }

    /// A request with `token` (a POST or DELETE of a change, `/v1/changes/...`), the body as JSON when given.
    func change(_ method: String, _ path: String, json: String? = nil, token: String) async throws -> ClientResponse {
        var headers = [("Authorization", "Bearer \(token)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await RawHTTP.request(port: port, method: method, path: path, headers: headers, body: json.map { Array($0.utf8) })
    }
}
