// swift-tools-version:6.0
import Foundation
import PackageDescription

/// `FLAGCLIENT_TRANSPORT=urlsession` builds the client as the iOS app does: `CCurl` leaves the module graph and
/// `URLSessionTransport` (FoundationNetworking here) is the only transport. Use a scratch path of its own
/// (`--scratch-path .build/urlsession`) so the two configurations do not rebuild each other.
let urlSessionOnly = ProcessInfo.processInfo.environment["FLAGCLIENT_TRANSPORT"] == "urlsession"
/// libcurl is the transport on Linux only: iOS ships no libcurl.
let curl: [Target.Dependency] = urlSessionOnly ? [] : [.target(name: "CCurl", condition: .when(platforms: [.linux]))]

/// Symi's remote-config and feature-flag service.
///
/// Module layout and the rules for what may import what: `docs/architecture.md`.
let package = Package(
    name: "SymiFlags",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FlagKit", targets: ["FlagKit"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "FlagStore", targets: ["FlagStore"]),
        .library(name: "FlagService", targets: ["FlagService"]),
        .library(name: "ClientHTTP", targets: ["ClientHTTP"]),
        .library(name: "FlagClient", targets: ["FlagClient"]),
        .library(name: "FlagOFREP", targets: ["FlagOFREP"]),
        .library(name: "SymiSchema", targets: ["SymiSchema"]),
        .library(name: "SymiPlus", targets: ["SymiPlus"]),
        .library(name: "AppStoreNotifications", targets: ["AppStoreNotifications"]),
        .library(name: "OutcomeAnalysis", targets: ["OutcomeAnalysis"]),
        .executable(name: "flagserver", targets: ["flagserver"]),
        .executable(name: "flagctl", targets: ["flagctl"]),
    ],
    targets: [
        // The document model and evaluation: Foundation only.
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"], exclude: ["Fixtures"]),
        .executableTarget(name: "flagkit-bench", dependencies: ["FlagKit"], path: "Benchmarks/flagkit-bench"),
        // FlagKit's JSON parser as an oracle for the differential test against Python's json (Tests/json).
        .executableTarget(name: "json-oracle", dependencies: ["FlagKit"], path: "Tests/JSONOracle"),

        // The server modules' one lock (a glibc mutex) and its condition variable; Glibc only.
        .target(name: "ServerLock"),
        .testTarget(name: "ServerLockTests", dependencies: ["ServerLock"]),

        // A general HTTP/1.1 server on POSIX sockets and epoll; knows nothing about flags.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .target(name: "HTTPServer", dependencies: ["CEpoll", "ServerLock"]),
        // A raw-socket HTTP client for the tests of HTTPServer and FlagOFREP (no product; tests only).
        .target(name: "RawHTTPClient", path: "Tests/RawHTTPClient"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "RawHTTPClient"]),
        .executableTarget(name: "http-bench-server", dependencies: ["HTTPServer"], path: "Benchmarks/http-bench-server"),

        // Versioned documents, tokens and audit in SQLite, or in PostgreSQL (libpq) for several nodes.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libcrypto's SHA-256 for the content hash of every publish (the CPU's SHA instructions); FlagKit's Swift SHA256 stays the
        // client's (and gives the same digest, tested).
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        // App Store Server Notifications V2: the signed payload verified (JWS, X.509 chain, Apple's markers) with libcrypto, what
        // is kept of it, the outcomes counted from it (docs/appstore.md).
        .target(name: "AppStoreNotifications", dependencies: ["CCrypto", "FlagKit"]),
        // A throw-away chain shaped like Apple's and an ES256 signer for every test target that needs signed notifications
        // (no product; tests only).
        .target(name: "AppStoreTestSupport", dependencies: ["AppStoreNotifications", "CCrypto"], path: "Tests/AppStoreTestSupport"),
        .testTarget(name: "AppStoreNotificationsTests", dependencies: ["AppStoreNotifications", "AppStoreTestSupport", "FlagKit"]),
        // Guards on changes and price experiments read from the outcomes (docs/guards.md): pure statistics, no SQL, no HTTP.
        .target(name: "OutcomeAnalysis", dependencies: ["AppStoreNotifications"]),
        .testTarget(name: "OutcomeAnalysisTests", dependencies: ["OutcomeAnalysis", "AppStoreNotifications"]),
        .target(name: "FlagStore", dependencies: ["FlagKit", "CSQLite", "CLibPQ", "ServerLock", "CCrypto", "AppStoreNotifications"]),
        .executableTarget(name: "flagstore-crash-helper", dependencies: ["FlagStore"], path: "Tests/flagstore-crash-helper"),
        .executableTarget(name: "flagstore-bench", dependencies: ["FlagStore"], path: "Benchmarks/flagstore-bench"),
        // What the test targets share (no product; tests only): real `flagserver` processes started with posix_spawn,
        // temporary directories, a clock moved by hand, a raw-socket client for the server's API, a webhook receiver.
        .target(name: "TestSupport", dependencies: ["FlagKit", "HTTPServer"], path: "Tests/TestSupport"),
        // A throw-away PostgreSQL cluster (initdb/pg_ctl in a temp dir) for the tests of both engines (no product; tests only).
        .target(name: "PostgresTestSupport", dependencies: ["FlagStore", "FlagKit", "AppStoreNotifications"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "FlagStoreTests", dependencies: ["FlagStore", "FlagKit", "AppStoreNotifications", "CSQLite", "flagstore-crash-helper", "PostgresTestSupport", "TestSupport"]),

        // OpenFeature Remote Evaluation Protocol on FlagKit and HTTPServer, mounted by FlagService.
        .target(name: "FlagOFREP", dependencies: ["FlagKit", "HTTPServer", "ServerLock"]),
        .testTarget(name: "FlagOFREPTests", dependencies: ["FlagOFREP", "FlagKit", "HTTPServer", "RawHTTPClient", "TestSupport"]),
        .executableTarget(name: "ofrep-test-server", dependencies: ["FlagOFREP", "FlagKit", "HTTPServer"], path: "Tests/ofrep-test-server"),
        .executableTarget(name: "ofrep-expectations", dependencies: ["FlagKit", "FlagOFREP"], path: "Tests/ofrep-expectations"),

        // The HTTP API and the server executable: its command line (serve, token, backup, check, restore, copy) is a library,
        // so its tests call the parser with arrays; `flagserver` only calls it.
        // zlib: each version's document is gzip-compressed once, when its snapshot is built.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "FlagService", dependencies: ["FlagKit", "FlagStore", "HTTPServer", "FlagOFREP", "ServerLock", "ClientHTTP", "CZlib", "AppStoreNotifications", "OutcomeAnalysis"]),
        .target(name: "FlagServerCLI", dependencies: ["CommandLineKit", "FlagKit", "FlagService", "FlagStore", "HTTPServer", "AppStoreNotifications", "ClientHTTP"]),
        .executableTarget(name: "flagserver", dependencies: ["FlagServerCLI"]),
        // FlagService's tests in three targets, each run by scripts/test in a process of its own: the service in the test
        // process; real `flagserver` processes; three nodes on one PostgreSQL (with the suites that start PostgreSQL), last,
        // because they load both cores.
        // What the three FlagService test targets share: the writer suites' outcomes, a JSON member subscript (tests only).
        .target(name: "FlagServiceTestSupport", dependencies: ["FlagService", "FlagKit", "HTTPServer"], path: "Tests/FlagServiceTestSupport"),
        .testTarget(name: "FlagServiceTests", dependencies: ["FlagService", "FlagStore", "FlagKit", "HTTPServer", "RawHTTPClient", "ClientHTTP", "TestSupport", "FlagServiceTestSupport", "AppStoreNotifications", "AppStoreTestSupport", "OutcomeAnalysis", "flagctl"]),
        .testTarget(name: "FlagServerProcessTests", dependencies: ["FlagService", "FlagStore", "FlagKit", "RawHTTPClient", "flagserver", "PostgresTestSupport", "TestSupport", "FlagServiceTestSupport", "AppStoreNotifications", "AppStoreTestSupport"]),
        .testTarget(name: "FlagServerClusterTests", dependencies: ["FlagService", "FlagStore", "FlagKit", "RawHTTPClient", "ClientHTTP", "flagserver", "PostgresTestSupport", "TestSupport", "FlagServiceTestSupport", "AppStoreTestSupport"]),
        .testTarget(name: "FlagServerCLITests", dependencies: ["FlagServerCLI", "CommandLineKit", "FlagKit", "FlagStore", "FlagService", "HTTPServer", "PostgresTestSupport", "TestSupport", "AppStoreNotifications", "AppStoreTestSupport"]),

        // Client-side HTTP: request/response types, HTTPTransport, URLSessionTransport everywhere, CurlTransport on Linux.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "ClientHTTP", dependencies: ["FlagKit"] + curl),
        // Misbehaving HTTP and TLS peers for the transport and client tests (no product; tests only).
        .target(name: "TransportTestSupport", path: "Tests/TransportTestSupport", exclude: ["Fixtures"]),
        .testTarget(name: "ClientHTTPTests", dependencies: ["ClientHTTP", "TransportTestSupport"]),

        // What the app links: disk cache, refresh policy, evaluation with FlagKit, on ClientHTTP.
        .target(name: "FlagClient", dependencies: ["FlagKit", "ClientHTTP"]),
        // SymiSchema: the client's fault tests check that no failure locks Symi's premium gate.
        .testTarget(name: "FlagClientTests", dependencies: ["FlagClient", "ClientHTTP", "FlagKit", "SymiSchema", "TransportTestSupport", "flagserver", "TestSupport"]),
        .executableTarget(name: "flagclient-fetch", dependencies: ["FlagClient", "ClientHTTP", "FlagKit"], path: "Tests/flagclient-fetch"),
        // The paid day rehearsed: a synthetic population through the runbook's steps (Benchmarks/PaidDayRehearsal).
        .target(name: "PaidDayRehearsal", dependencies: ["FlagKit", "FlagClient", "SymiPlus", "SymiCatalog", "SymiSchema", "AppStoreNotifications", "AppStoreTestSupport", "OutcomeAnalysis", "FlagService", "FlagStore", "HTTPServer", "RawHTTPClient"], path: "Benchmarks/PaidDayRehearsal"),
        .executableTarget(name: "paid-day-rehearsal", dependencies: ["PaidDayRehearsal"], path: "Benchmarks/paid-day-rehearsal"),
        .testTarget(name: "PaidDayRehearsalTests", dependencies: ["PaidDayRehearsal", "FlagKit", "FlagClient", "SymiPlus", "AppStoreNotifications", "AppStoreTestSupport", "OutcomeAnalysis"]),
        .executableTarget(name: "client-bench", dependencies: ["FlagClient", "ClientHTTP", "FlagKit", "SymiSchema"], path: "Benchmarks/client-bench"),
        // How the app links the client (launch, refresh on foreground, Application Support); SwiftUI parts behind canImport.
        .executableTarget(name: "symi-app-example", dependencies: ["FlagClient", "SymiSchema"], path: "Examples/SymiAppExample"),

        // One command-line vocabulary for flagctl and flagserver: typed options, subcommands, help, usage errors (exit 64).
        .target(name: "CommandLineKit"),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),

        // The operators' CLI.
        .target(name: "FlagCtlKit", dependencies: ["CommandLineKit", "FlagKit", "ClientHTTP", "SymiCatalog", "SymiSchema", "OutcomeAnalysis", "AppStoreNotifications"]),
        .executableTarget(name: "flagctl", dependencies: ["FlagCtlKit", "CommandLineKit"]),
        // flagserver: the server-command tests run the real server binary next to the real flagctl.
        .testTarget(name: "FlagCtlKitTests", dependencies: ["FlagCtlKit", "CommandLineKit", "FlagKit", "SymiSchema", "OutcomeAnalysis", "flagctl", "flagserver", "TestSupport", "AppStoreTestSupport"]),

        // Symi Plus (docs/monetization.md): the product catalogue (no imports; flagctl reads it too), Symi's schema
        // (flag names, safe defaults, typed values on FlagKit alone; the app and flagctl's lint read it, so FlagKit and
        // FlagClient stay generic), and the module the app links next to FlagClient (platform-neutral core; StoreKit
        // and SwiftUI adapters behind #if).
        .target(name: "SymiCatalog"),
        .target(name: "SymiSchema", dependencies: ["FlagKit"]),
        // FlagClient: the typed values read from real snapshots (safe defaults, clamping, fallbacks).
        .testTarget(name: "SymiSchemaTests", dependencies: ["SymiSchema", "FlagKit", "FlagClient", "TestSupport"]),
        .target(name: "SymiPlus", dependencies: ["FlagClient", "FlagKit", "SymiCatalog", "SymiSchema"]),
        .testTarget(name: "SymiPlusTests", dependencies: ["SymiPlus", "SymiCatalog", "SymiSchema", "FlagClient", "FlagKit", "TestSupport", "flagserver"]),
    ],
    swiftLanguageModes: [.v6]
)
