import CommandLineKit
import Testing
@testable import FlagCtlKit

/// Every `flagctl` command's help says what its parser takes: an example built from each usage line parses, and a
/// word the abstract names in capitals is a positional argument.
@Suite struct FlagCtlHelpTests {
    /// The dependencies a flat usage line cannot show, each said in its command's help: `diff`'s impact options need
    /// `--impact` and `--env` is for the one-argument form; `schedule` takes FLAG VALUE or `--document`; `publish` needs
    /// `-m` unless `--dry-run` (so its usage shows `-m` in brackets); `guard add` needs `--change` or `--version` (and a
    /// rule: `--file`, or `--metric` and `--action`).
    @Test func everyUsageLineParsesAsItReads() {
        let problems = FlagCtl.tool.helpProblems(examples: [
            "env": "production", "file": "flags/production.json", "key": "showIntroFreeSubscriptionBanner", "value": "true",
            "id": "1", "n": "1", "time": "2027-03-01T00:00:00+01:00", "a": "flags/production.json", "b": "production",
            "action": "check", "storekit-file": "storekit/Symi.storekit", "flags-file": "flags/production.json",
            "key=value": "country=DE", "date-time": "2027-03-01T00:00:00+01:00", "url": "https://hooks.example.com/flags",
            "list": "version.published", "product=amount:cur": "symi_plus_monthly_499=4.99:EUR", "flag": "paywallProduct",
            "statuses": "watching,tripped",
        ], dependencies: ["needs --impact", "only for the one-argument form", "FLAG VALUE or --document FILE, not both",
                          "missing -m/--message", "what the guard watches"])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
