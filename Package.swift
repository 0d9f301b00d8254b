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
        .library(name: "FlagStore", targets: ["FlagStore"]),
    ],
    targets: [
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "FlagStore", dependencies: ["FlagKit", "CSQLite"]),
        .executableTarget(name: "flagstore-crash-helper", dependencies: ["FlagStore"]),
        .executableTarget(name: "flagstore-bench", dependencies: ["FlagStore"]),
        .testTarget(name: "FlagStoreTests", dependencies: ["FlagStore", "FlagKit", "CSQLite", "flagstore-crash-helper"]),
    ],
    swiftLanguageModes: [.v6]
)
