import Foundation

/// The repository root (for `flags/*.json` and the built products), from this file's path.
package let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
