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
    ],
    targets: [
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"], exclude: ["Fixtures"]),
        .executableTarget(name: "flagkit-bench", dependencies: ["FlagKit"], path: "Benchmarks/flagkit-bench"),
    ],
    swiftLanguageModes: [.v6]
)
