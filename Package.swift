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
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
    ],
    targets: [
        .target(name: "FlagKit"),
        .testTarget(name: "FlagKitTests", dependencies: ["FlagKit"]),
        // HTTPServer is Linux-only: epoll and eventfd through the CEpoll shim.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .target(name: "HTTPServer", dependencies: ["CEpoll"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
        .executableTarget(name: "http-bench-server", dependencies: ["HTTPServer"]),
    ],
    swiftLanguageModes: [.v6]
)
