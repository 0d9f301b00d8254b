import FlagKit
import Testing
@testable import FlagCtlKit

/// `unknown-install-date-never-locks`: no lock because an install's `firstInstallDate` is unknown.
@Suite struct LinterInstallDateTests {
    /// The clean fixture with `premiumFeaturesLocked` given these rules and default, and the date cohorts beside it.
    private func findings(rules: String, default lock: Bool = false) -> [String] {
        let premium = #"{"type": "boolean", "default": \#(lock), "requires": {"monetizationEnabled": true}, "rules": [\#(rules)]}"#
        let json = TestSupport.cleanDocument(premium: premium).replacingOccurrences(of: #""cohorts": {"#, with: #"""
        "cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                    "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}},
                    "dateUnknown": {"firstInstallDate": {"exists": false}},
                    "notEarly": {"not": {"cohort": "earlyUsers"}},
                    "earlyOrUnknown": {"any": [{"cohort": "earlyUsers"}, {"cohort": "dateUnknown"}]},
                    "earlyOnTheAppStore": {"cohort": "earlyUsers", "channel": {"eq": "appstore"}},
                    "lateBeta": {"cohort": "beta", "firstInstallDate": {"after": "2027-03-01T00:00:00Z"}},
                    "betaOrLate": {"any": [{"cohort": "beta"}, {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}]},
        """#)
        return Linter.lint(Array(json.utf8)).map(\.description)
    }

    private let base = "/flags/premiumFeaturesLocked"
    private let tag = "[unknown-install-date-never-locks] flag premiumFeaturesLocked:"

    @Test func theRunbooksFormHasNoFindings() {
        // Locked only for installs known to be first downloaded after the switch; the early cohort stays open.
        #expect(findings(rules: #"{"cohort": "internal", "value": true}, {"cohort": "earlyUsers", "value": false}, "#
                         + #"{"cohort": "installedSinceSwitch", "value": true}"#) == [])
        #expect(findings(rules: #"{"cohort": "installedSinceSwitch", "value": true}"#) == [])
        #expect(findings(rules: #"{"cohort": "lateBeta", "value": true}, {"cohort": "betaOrLate", "value": true}"#) == [],
                "a lock that also needs a known late date, or holds for beta whatever the date")
        // An unlocking rule that also takes in unknown dates is never skipped because of them.
        #expect(findings(rules: #"{"cohort": "earlyOrUnknown", "value": false}, {"value": true}"#) == [])
    }

    @Test func aLockThatHoldsBecauseTheDateIsAbsentIsAFinding() {
        #expect(findings(rules: #"{"cohort": "dateUnknown", "value": true}"#) == [
            "\(base)/rules/0: \(tag) rule 0 locks installs because their firstInstallDate is unknown (cohort dateUnknown holds through "
                + #"exists: false or a not around a date test); lock only a cohort that needs a known date, such as {"after": ...}"#,
        ])
        let notEarly = findings(rules: #"{"cohort": "notEarly", "value": true}"#)
        #expect(notEarly.count == 1 && notEarly.first?.hasPrefix("\(base)/rules/0: \(tag) rule 0 locks installs because") == true,
                "not around before takes in unknown dates: \(notEarly)")
    }

    @Test func anEarlyUserRuleThatUnknownDatesSkipIntoALockIsAFinding() {
        // The naive runbook: locked by default, unlocked for the early cohort. An unknown date is locked.
        let message = #"locks installs whose firstInstallDate is unknown: they never match rule 0 (cohort earlyUsers) that keeps known early "#
            + #"installs open; keep the default unlocked and lock with a rule for {"firstInstallDate": {"after": ...}} instead"#
        #expect(findings(rules: #"{"cohort": "earlyUsers", "value": false}"#, default: true) == ["\(base)/default: \(tag) the default \(message)"])
        #expect(findings(rules: #"{"cohort": "earlyUsers", "value": false}, {"value": true}"#) == ["\(base)/rules/1: \(tag) rule 1 \(message)"])
        let onAppStore = findings(rules: #"{"cohort": "earlyOnTheAppStore", "value": false}, {"cohort": "beta", "value": true}"#)
        #expect(onAppStore.map { $0.components(separatedBy: ": ").first } == ["\(base)/rules/1"], "\(onAppStore)")
    }
}
