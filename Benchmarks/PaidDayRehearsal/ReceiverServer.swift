import AppStoreNotifications
import AppStoreTestSupport
import FlagService
import FlagStore
import Foundation
import HTTPServer
import RawHTTPClient

/// The real receiver for the rehearsal: an in-process `FlagService` over a fresh SQLite file, seeded from `flags/`,
/// listening on 127.0.0.1 port 0 with real sockets (as FlagServiceTests run it), trusting a throw-away App Store
/// chain with Apple's markers (`AppStoreTestSupport`). In process rather than a `flagserver` child, because the guard
/// rehearsal steps the service's job clock, which only an in-process service exposes.
public final class ReceiverServer: @unchecked Sendable {
    /// Why the rehearsal could not use the server.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public var description: String
    }

    /// The temporary directory holding the database.
    public let directory: String
    /// The store.
    public let store: FlagStore
    /// The service.
    public let service: FlagService
    /// The socket's server.
    let server: HTTPServer
    /// The port it listens on.
    public let port: Int
    /// A writer token for every environment (the reads of outcomes and experiments need one).
    public let writerToken: String
    /// Signs notifications as the trusted chain.
    package let signer: AppStoreTestSigner

    /// Starts a server seeded from `flagsDirectory`; `configure` adjusts its options (a clock for the jobs).
    public init(flagsDirectory: String, configure: (inout FlagService.Options) -> Void = { _ in }) throws {
        // The rehearsal measures the statistics, not the disk: its throw-away database lives in memory where the
        // system has a tmpfs (every commit still goes through the writer and its fsync, which costs nothing there).
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("rehearsal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ca = try AppStoreTestCA()
        signer = AppStoreTestSigner(ca: ca)
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001, environments: [.production]))
        var options = FlagService.Options()
        options.appStore = FlagService.AppStoreOptions(verifier: verifier)
        options.changeImpactSample = 1_000
        configure(&options)
        store = try FlagStore.open(location: directory + "/flags.sqlite")
        let logger = ServiceLogger(minimumLevel: .warning)
        try FlagService.seed(store: store, flagsDirectory: flagsDirectory, logger: logger)
        writerToken = try store.createToken(name: "rehearsal-writer", role: .writer).secret
        service = try FlagService(store: store, options: options, logger: logger)
        server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, eventLoops: 2), handler: try service.makeRouter())
        service.attach(server)
        port = try server.start()
    }

    /// Stops the server and the service, removes the database.
    public func stop() {
        server.shutdown(gracePeriod: .seconds(2))
        service.shutdown()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Signs and posts `notifications` to `POST /v1/appstore/notifications` as Apple would, over `connections`
    /// keep-alive connections at once (signing on each connection's thread); throws on any answer but 200.
    public func post(_ notifications: [SimulatedNotification], connections: Int = 32) throws {
        let failures = FailureList()
        let slices = max(1, min(connections, notifications.count))
        // One thread per connection (concurrentPerform would run only as many as there are cores): the receiver
        // answers after the durable commit, and only concurrent requests share one (the writer's group commit).
        let done = DispatchGroup()
        for slice in 0..<slices {
            done.enter()
            let thread = Thread { [self] in
                defer { done.leave() }
                postSlice(slice, of: slices, notifications, failures)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        done.wait()
        if let first = failures.all.first { throw Failure(description: "\(failures.all.count) connections failed; first: \(first)") }
    }

    /// Posts every `slices`-th notification from `slice` on one keep-alive connection.
    private func postSlice(_ slice: Int, of slices: Int, _ notifications: [SimulatedNotification], _ failures: FailureList) {
        do {
            var client = try RawClient(port: port, timeoutSeconds: 60)
            var index = slice
            while index < notifications.count {
                let body = String(decoding: try notifications[index].testNotification().body(signer), as: UTF8.self)
                var response: RawClient.Response
                do {
                    response = try client.request("POST", "/v1/appstore/notifications", body: body)
                } catch {
                    // A keep-alive connection the server closed: once more on a new one.
                    client = try RawClient(port: port, timeoutSeconds: 60)
                    response = try client.request("POST", "/v1/appstore/notifications", body: body)
                }
                guard response.status == 200 else {
                    throw Failure(description: "notification \(notifications[index].uuid): \(response.status) \(response.text)")
                }
                index += slices
            }
        } catch {
            failures.append("\(error)")
        }
    }

    /// GETs `path` with the writer token; the answer's JSON object, or a failure naming the status and body.
    public func getJSON(_ path: String) throws -> [String: Any] {
        let client = try RawClient(port: port, timeoutSeconds: 120)
        let response = try client.request("GET", path, headers: [("Authorization", "Bearer \(writerToken)")])
        guard response.status == 200,
              let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw Failure(description: "GET \(path): \(response.status) \(response.text.prefix(500))")
        }
        return object
    }

    /// A write with the writer token (`X-Change-Message` set): status and JSON body.
    public func send(_ method: String, _ path: String, json: String, message: String = "rehearsal") throws -> (status: Int, body: [String: Any]) {
        let client = try RawClient(port: port, timeoutSeconds: 120)
        let response = try client.request(method, path, body: json, headers: [
            ("Authorization", "Bearer \(writerToken)"), ("X-Change-Message", message),
        ])
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        return (response.status, object)
    }
}

/// Failures collected from the posting threads.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
