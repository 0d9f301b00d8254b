import FlagKit
import Foundation

/// The runbook's early-user rule on Symi's production document: `premiumFeaturesLocked` true only for installs known
/// to be first downloaded after the switch (2027-03-01T00:00:00Z), the early cohort kept open, the testers' rule first.
enum InstallDateFixtures {
    static let switchInstant = "2027-03-01T00:00:00Z"

    /// flags/production.json as it is.
    static func productionText() throws -> String { String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self) }

    /// flags/production.json with the early-user cohorts and rules added.
    static func runbookText() throws -> String {
        var root = try JSONParser.parse(TestSupport.bytes("flags/production.json")).value.objectValue ?? [:]
        var cohorts = root["cohorts"]?.objectValue ?? [:]
        cohorts["earlyUsers"] = ["firstInstallDate": ["before": .string(switchInstant)]]
        cohorts["installedSinceSwitch"] = ["firstInstallDate": ["after": .string(switchInstant)]]
        root["cohorts"] = .object(cohorts)
        var flags = root["flags"]?.objectValue ?? [:]
        var premium = flags["premiumFeaturesLocked"]?.objectValue ?? [:]
        premium["rules"] = .array((premium["rules"]?.arrayValue ?? [])
            + [["cohort": "earlyUsers", "value": false], ["cohort": "installedSinceSwitch", "value": true]])
        flags["premiumFeaturesLocked"] = .object(premium)
        root["flags"] = .object(flags)
        return try FlagDocument.decode(JSONValue.object(root).canonicalBytes).prettyJSON
    }
}
