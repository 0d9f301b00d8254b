import FlagClient
import FlagKit
import Foundation
import SymiSchema
import TestSupport

/// Symi's documents under `flags/` and the snapshots the app would make of them.
enum Documents {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A German user of the App Store build.
    static let germanApp = AppContext(appVersion: "2.4.0", osVersion: "17.4", platform: "ios", locale: "de_DE",
                                      country: "DE", channel: "appstore")

    /// Bytes of a file under the package root.
    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
    }

    /// `flags/production.json`, decoded.
    static func production() throws -> FlagDocument {
        try FlagDocument.decode(bytes("flags/production.json"))
    }

    /// Production with `premiumFeaturesLocked` true for everyone (the paid launch).
    static func locked() throws -> FlagDocument {
        try modified(production()) { flags in
            flags["premiumFeaturesLocked"] = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true]]
        }
    }

    /// `document` with its flags changed by `change`.
    static func modified(_ document: FlagDocument, _ change: (inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        try document.modified(change)
    }

    /// `document` as version 3 from the server, evaluated for `context` (a German install unless told otherwise).
    static func snapshot(_ document: FlagDocument, context: EvaluationContext = germanApp.evaluationContext(installId: "U1"))
        -> FlagSnapshot {
        FlagSnapshot(document: document, version: 3, context: context)
    }

    /// The typed values of ``snapshot(_:context:)``.
    static func values(_ document: FlagDocument, context: EvaluationContext = germanApp.evaluationContext(installId: "U1"))
        -> SymiFlagValues {
        SymiFlagValues(snapshot(document, context: context))
    }

    /// What a client configured with Symi's safe defaults holds before any document arrives.
    static func safeDefaults(context: EvaluationContext) -> FlagSnapshot {
        FlagSnapshot(envelope: nil, safeDefaults: SymiSafeDefaults.document, source: .safeDefaults, context: context)
    }
}
