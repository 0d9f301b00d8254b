import FlagKit
import Foundation

/// The runbook's early-user rule (`Tests/FlagKitTests/Fixtures/early-user-rule.changes.json`, a change set) on Symi's
/// production document: `premiumFeaturesLocked` true only for installs known to be first downloaded after the switch
/// (2027-03-01T00:00:00Z), the early cohort kept open, the testers' rule first.
enum InstallDateFixtures {
    /// flags/production.json as it is.
    static func productionText() throws -> String { String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self) }

    /// flags/production.json with the early-user change set applied, pretty as flagctl writes it.
    static func runbookText() throws -> String {
        let changes = try ChangeSet.decode(TestSupport.bytes("Tests/FlagKitTests/Fixtures/early-user-rule.changes.json"))
        return try changes.apply(to: FlagDocument.decode(TestSupport.bytes("flags/production.json"))).prettyJSON
    }
}
