// swift-tools-version:6.0
import PackageDescription

/// Symi's remote-config and feature-flag service.
///
/// Module layout and the rules for what may import what: `../shared/design.md` and `docs/architecture.md`.
let package = Package(
    name: "SymiFlags",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FlagKit", targets: ["FlagKit"]),
        .library(name: "FlagClient", targets: ["FlagClient"]),
    ],
    targets: [
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"]),
        /// libcurl through typed `static inline` wrappers (Swift cannot call the variadic `curl_easy_setopt`).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        /// What the app links: HTTP transport on libcurl, disk cache, refresh policy.
        .target(name: "FlagClient", dependencies: ["CCurl"]),
        .testTarget(name: "FlagClientTests", dependencies: ["FlagClient"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
