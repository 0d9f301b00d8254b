import FlagKit
import Foundation
import HTTPServer
import Testing
@testable import FlagOFREP

/// Fixture documents and helpers shared by the FlagOFREP tests.
enum Fixtures {
    /// The repository root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// A document from a path relative to the repository root.
    static func document(_ relativePath: String) throws -> FlagDocument {
        let path = root.appendingPathComponent(relativePath).path
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(description: "cannot read \(path)") }
        return try FlagDocument.decode(Array(data))
    }

    /// `Tests/interop/all-types.json` (every flag type, rollouts, prerequisites) as version 12 of "test".
    static func allTypes() throws -> OFREPSnapshot {
        OFREPSnapshot(document: try document("Tests/interop/all-types.json"), version: 12, environment: "test")
    }

    /// `flags/production.json` as version 3 of "production".
    static func production() throws -> OFREPSnapshot {
        OFREPSnapshot(document: try document("flags/production.json"), version: 3, environment: "production")
    }
}

/// A response body parsed as JSON (failing the test when it is not JSON).
func json(_ response: HTTPResponse) throws -> JSONValue {
    try JSONParser.parse(response.body).value
}

/// A request body with the given context.
func body(_ context: JSONValue) -> [UInt8] {
    (["context": context] as JSONValue).canonicalBytes
}

/// A context of the English cohort for an install.
func englishContext(_ installId: String = "A1B2C3D4-0000-4000-8000-000000000042") -> JSONValue {
    ["targetingKey": .string(installId), "locale": "en-US"]
}
