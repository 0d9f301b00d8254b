import Foundation
@testable import FlagKit

/// Paths and helpers shared by the FlagKit tests.
enum TestSupport {
    /// The package's root directory.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Bytes of a file under the package root.
    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
    }

    /// Decodes a document that the test expects to be valid, failing with every issue otherwise.
    static func document(_ json: String) throws -> FlagDocument {
        try FlagDocument.decode(json)
    }

    /// The issues of a document the test expects to be invalid (empty when it is valid).
    static func issues(_ json: String) -> [String] {
        FlagDocument.problems(in: Array(json.utf8)).map(\.description)
    }
}
