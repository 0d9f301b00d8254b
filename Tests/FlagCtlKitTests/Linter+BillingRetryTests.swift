import FlagKit
import SymiSchema
import Testing
@testable import FlagCtlKit

/// The `billing-retry-access-days` rule: an integer flag, every value 0...60.
@Suite struct LinterBillingRetryTests {
    /// The clean fixture with `billingRetryAccessDays` set to `flag` (JSON).
    func findings(_ flag: String) -> [LintFinding] {
        let document = TestSupport.cleanDocument().replacingOccurrences(
            of: #"{"flags": {"#, with: #"{"flags": {"billingRetryAccessDays": \#(flag),"#)
        return Linter.lint(Array(document.utf8)).filter { $0.rule == .billingRetryAccessDays }
    }

    @Test(arguments: ["0", "3", "16", "60"])
    func daysInsideApplesRetryPeriodAreFine(days: String) {
        #expect(findings(#"{"type": "integer", "default": \#(days)}"#) == [])
    }

    @Test func everyValueOutsideIsReportedWithWhatTheAppWouldUse() {
        let flag = #"{"type": "integer", "default": 90, "rules": [{"cohort": "beta", "value": 3}, {"cohort": "internal", "value": -1}]}"#
        #expect(findings(flag).map(\.description) == [
            "/flags/billingRetryAccessDays/default: [billing-retry-access-days] flag billingRetryAccessDays: 90 days is outside 0...60 (Apple retries a failed renewal for up to 60 days); the app would use 60",
            "/flags/billingRetryAccessDays/rules/1/value: [billing-retry-access-days] flag billingRetryAccessDays: -1 days is outside 0...60 (Apple retries a failed renewal for up to 60 days); the app would use 0",
        ])
    }

    /// The lint reports exactly the values the app would not take as written, and names what the app would use: both
    /// come from `SymiFlags.BillingRetryAccessDays`, the definition the app's `SymiFlagValues` clamps with.
    @Test func theRuleFollowsTheAppsClamp() {
        let range = SymiFlags.BillingRetryAccessDays.range
        let bounds = [Int64(range.lowerBound), Int64(range.upperBound)]
        for days in bounds.flatMap({ [$0 - 1, $0, $0 + 1] }) + [Int64.min, Int64.max] {
            let used = SymiFlags.BillingRetryAccessDays.clamped(days)
            let messages = findings(#"{"type": "integer", "default": \#(days)}"#).map(\.message)
            if Int64(used) == days {
                #expect(messages == [], "\(days) is used as written")
            } else {
                #expect(messages.count == 1 && messages[0].hasSuffix("the app would use \(used)"), "\(days): \(messages)")
            }
        }
    }

    @Test func aFlagOfAnotherTypeIsReported() {
        #expect(findings(#"{"type": "string", "default": "3"}"#).map(\.path) == ["/flags/billingRetryAccessDays/type"])
    }

    @Test func aDocumentWithoutTheFlagIsFine() {
        #expect(Linter.lint(Array(TestSupport.cleanDocument().utf8)) == [])
    }

    @Test(arguments: ["flags/production.json", "flags/staging.json"])
    func symisDocumentsSetTheDefault(file: String) throws {
        let document = try FlagDocument.decode(try TestSupport.bytes(file))
        #expect(document.flags["billingRetryAccessDays"]?.defaultValue == .integer(3))
    }
}
