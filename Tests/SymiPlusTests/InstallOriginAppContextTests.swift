import FlagClient
import FlagKit
import Foundation
import Testing
@testable import SymiPlus

/// The install origin reaches the flags: early users stay open, late installs are locked, unknown ones never.
@Suite struct InstallOriginAppContextTests {
    /// The runbook's rule (docs/monetization.md, "Runbook: the paid day", step 3).
    static let document = """
    {"cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                 "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}},
     "flags": {"premiumFeaturesLocked": {"type": "boolean", "default": false,
               "rules": [{"cohort": "earlyUsers", "value": false}, {"cohort": "installedSinceSwitch", "value": true}]}}}
    """

    static func locked(_ context: AppContext) throws -> Bool? {
        let document = try FlagDocument.decode(Self.document)
        return document.evaluate("premiumFeaturesLocked", context: context.evaluationContext(installId: "install-1")).value.boolValue
    }

    @Test func aVerifiedOriginGivesTheDateAndTheRuleDecides() throws {
        let base = AppContext(appVersion: "2.4.0", platform: "ios")
        let early = InstallOrigin.verified(firstInstallDate: Date(timeIntervalSince1970: 1_780_000_000), originalAppVersion: "230")
        let late = InstallOrigin.verified(firstInstallDate: Date(timeIntervalSince1970: 1_810_000_000), originalAppVersion: "260")
        #expect(base.with(early).firstInstallDate == early.firstInstallDate)
        #expect(try Self.locked(base.with(early)) == false, "downloaded before the switch: open")
        #expect(try Self.locked(base.with(late)) == true, "downloaded after the switch: locked")
    }

    @Test func anUnknownOrMissingOriginCarriesNoDateAndLocksNothing() throws {
        var base = AppContext(appVersion: "2.4.0", platform: "ios")
        base.firstInstallDate = Date(timeIntervalSince1970: 1_800_000_000)   // a stale date from an earlier call
        for origin in [InstallOrigin.unknown("unverified app transaction"), nil] {
            let context = base.with(origin)
            #expect(context.firstInstallDate == nil, "\(String(describing: origin))")
            #expect(try Self.locked(context) == false, "an install whose date is unknown is never locked by the date")
        }
    }
}
