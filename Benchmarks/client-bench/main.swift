import FlagClient
import FlagKit
import Foundation
import SymiSchema

/// FlagClient's launch cost and refresh round trip, run by hand in release mode (never in CI) through
/// `Benchmarks/client-launch.sh`. Usage: `client-bench [flags/production.json] [launch runs] [refresh runs]`.
///
/// Launch: time from `FlagClient(configuration:)` to having read every typed value, with a cache present
/// (read + checksum + envelope parse + FlagKit validation + content hash + evaluation of every flag).
/// Peer in the same process: FlagKit alone decoding the bare document bytes and evaluating every flag.
/// Refresh: one forced `refresh()` against a local server (new TCP connection, GET, validation, atomic
/// durable cache write with fsync, swap), for `200` and `304`, on every transport of the build (libcurl and
/// URLSession here); peer: that transport's bare GET of the same bytes.

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func report(_ label: String, _ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let median = percentile(sorted, 0.5)
    print(String(format: "%-44@ median %8.1f µs   p99 %8.1f µs   min %8.1f µs   (%d runs)", label, median,
                 percentile(sorted, 0.99), sorted[0], sorted.count))
    return median
}

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "flags/production.json"
let launchRuns = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000
let refreshRuns = arguments.count > 3 ? Int(arguments[3]) ?? 300 : 300

do {
    guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path)") }
    let document = try FlagDocument.decode([UInt8](data))
    let envelope: JSONValue = [
        "author": "bench", "contentHash": .string(document.contentHash), "document": document.jsonValue,
        "environment": "production", "message": "benchmark", "publishedAt": "2026-11-29T15:30:00.123Z", "version": 12,
    ]
    let body = envelope.canonicalBytes + [0x0A]
    let etag = "\"12-\(document.contentHash.prefix(16))\""
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FlagCache(directory: directory).store(FlagCacheEntry(environment: "production", etag: etag, version: 12,
                                                             fetchedAt: Date(), document: Data(body)))
    let server = try BenchServer(body: body, etag: etag)
    guard let baseURL = URL(string: "http://127.0.0.1:\(server.port)/") else { throw BenchError("bad URL") }
    let app = AppContext(appVersion: "2.4.0", osVersion: "17.4", platform: "ios", locale: "de_DE", country: "DE",
                         channel: "appstore")
    let configuration = FlagClientConfiguration(environment: "production", baseURL: baseURL, cacheDirectory: directory, app: app,
                                                safeDefaults: SymiSafeDefaults.document)
    print("document \(path): \(body.count) bytes of envelope, \(document.flags.count) flags")

    var sink = 0
    func readAll(_ client: FlagClient) {
        let values = SymiFlagValues(client.snapshot)
        sink &+= (values.monetizationEnabled ? 1 : 0) + (values.premiumFeaturesLocked ? 1 : 0)
            + (values.showIntroFreeSubscriptionBanner ? 1 : 0) + (values.subscriptionPriceIncreaseMessagingEnabled ? 1 : 0)
            + values.introOfferMessage.utf8.count + values.subscriptionScreenCopy.benefits.count
            + values.subscriptionProductIds.count + values.premiumFeatures.count + values.legalLinks.privacyPolicy.path.utf8.count
    }

    // The very first client of the process: includes one-time initialisation (lazy globals, first file access).
    let coldStart = nanoseconds()
    let cold = FlagClient(configuration: configuration)
    readAll(cold)
    let coldMicros = Double(nanoseconds() - coldStart) / 1e3
    guard case .cache = cold.source else { throw BenchError("expected a cache launch, got \(cold.source)") }
    print(String(format: "%-44@ %8.1f µs", "launch, first client in the process", coldMicros))

    var launches: [Double] = []
    for _ in 0..<launchRuns {
        let start = nanoseconds()
        let client = FlagClient(configuration: configuration)
        readAll(client)
        launches.append(Double(nanoseconds() - start) / 1e3)
    }
    let launchMedian = report("launch with cache (create + read all values)", launches)

    var peers: [Double] = []
    let documentBytes = document.canonicalBytes
    let context = app.evaluationContext(installId: cold.installId)
    for _ in 0..<launchRuns {
        let start = nanoseconds()
        let decoded = try FlagDocument.decode(documentBytes)
        sink &+= decoded.evaluateAll(context: context).count
        peers.append(Double(nanoseconds() - start) / 1e3)
    }
    let peerMedian = report("peer: FlagKit decode + evaluateAll only", peers)
    print(String(format: "ratio launch / FlagKit peer: %.2fx", launchMedian / peerMedian))

    // Where the launch time goes (each step alone, same runs).
    func timeStep(_ label: String, _ step: () throws -> Int) rethrows {
        var samples: [Double] = []
        for _ in 0..<launchRuns {
            let start = nanoseconds()
            sink &+= try step()
            samples.append(Double(nanoseconds() - start) / 1e3)
        }
        _ = report("  step: " + label, samples)
    }
    let cache = FlagCache(directory: directory)
    timeStep("install id file read") { InstallIdentity.loadOrCreate(in: directory).id.utf8.count }
    timeStep("cache file read + checksum") { cache.load(environment: "production").entry?.document.count ?? 0 }
    try timeStep("envelope parse + FlagKit validation + hash") { try FlagEnvelope.decode(body).version }
    timeStep("content hash alone (canonical + SHA-256)") { document.contentHash.utf8.count }
    timeStep("evaluate all flags") { document.evaluateAll(context: context).count }
    let entry = FlagCacheEntry(environment: "production", etag: etag, version: 12, fetchedAt: Date(), document: Data(body))
    try timeStep("(refresh) cache store: temp file, fsync, rename, dir fsync") {
        try cache.store(entry)
        return 1
    }

    let empty = directory.appendingPathComponent("empty")
    var defaults: [Double] = []
    var noCache = configuration
    noCache.cacheDirectory = empty
    for _ in 0..<launchRuns {
        let start = nanoseconds()
        let client = FlagClient(configuration: noCache)
        readAll(client)
        defaults.append(Double(nanoseconds() - start) / 1e3)
    }
    _ = report("launch without cache (safe defaults)", defaults)

    // Refresh round trips: 200 (the client never holds the ETag: a fresh client per run) and 304.
    func timeRefresh(_ label: String, expect: (RefreshOutcome) -> Bool, makeClient: () -> FlagClient) async throws -> Double {
        var samples: [Double] = []
        for _ in 0..<refreshRuns {
            let client = makeClient()
            let start = nanoseconds()
            let outcome = await client.refresh(force: true)
            samples.append(Double(nanoseconds() - start) / 1e3)
            guard expect(outcome) else { throw BenchError("\(label): unexpected \(outcome)") }
        }
        return report(label, samples)
    }
    // Every transport this build has, in one run against the same server: refresh 200, refresh 304, bare GET.
    var medians: [TransportKind: (full: Double, notModified: Double, get: Double)] = [:]
    for kind in TransportKind.allCases {
        print("-- transport \(kind)")
        let fresh = directory.appendingPathComponent("fresh-\(kind)")
        var freshConfiguration = configuration
        freshConfiguration.cacheDirectory = fresh
        freshConfiguration.transport = kind
        let full = try await timeRefresh("refresh 200 (GET, validate, fsync'd cache, swap)",
                                         expect: { if case .updated = $0 { true } else { false } }) {
            try? FileManager.default.removeItem(at: fresh.appendingPathComponent("production.flagcache"))
            return FlagClient(configuration: freshConfiguration)
        }
        var sharedConfiguration = configuration
        sharedConfiguration.transport = kind
        let shared = FlagClient(configuration: sharedConfiguration)
        let notModified = try await timeRefresh("refresh 304 (GET, fsync'd cache touch)",
                                                expect: { if case .notModified = $0 { true } else { false } }) { shared }
        let transport = kind.makeTransport()
        var gets: [Double] = []
        for _ in 0..<refreshRuns {
            let start = nanoseconds()
            let response = try await transport.send(ClientRequest(url: configuration.documentURL))
            gets.append(Double(nanoseconds() - start) / 1e3)
            guard response.status == 200 else { throw BenchError("peer GET: status \(response.status)") }
        }
        let getMedian = report("peer: bare \(kind) GET of the same bytes", gets)
        print(String(format: "ratio refresh 200 / bare GET: %.2fx", full / getMedian))
        medians[kind] = (full, notModified, getMedian)
    }
    if let session = medians[.urlSession], let curl = medians.first(where: { $0.key != .urlSession })?.value {
        print(String(format: "urlSession / curl: refresh 200 %.2fx, refresh 304 %.2fx, bare GET %.2fx (target: refresh <= 1.5x)",
                     session.full / curl.full, session.notModified / curl.notModified, session.get / curl.get))
    }
    if sink == 42 { print("") }
} catch {
    FileHandle.standardError.write(Data("client-bench: \(error)\n".utf8))
    exit(1)
}
