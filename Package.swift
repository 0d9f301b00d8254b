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
        .executable(name: "flagctl", targets: ["flagctl"]),
    ],
    targets: [
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"], exclude: ["Fixtures"]),
        .target(name: "FlagCtlKit", dependencies: ["FlagKit"]),
        .executableTarget(name: "flagctl", dependencies: ["FlagCtlKit"]),
        .testTarget(name: "FlagCtlKitTests", dependencies: ["FlagCtlKit", "FlagKit", "flagctl"]),
    ],
    swiftLanguageModes: [.v6]
)
