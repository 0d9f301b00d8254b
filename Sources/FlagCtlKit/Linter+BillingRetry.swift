import FlagKit
import SymiSchema

/// `billingRetryAccessDays`: the courtesy window after a failed renewal. The app clamps it to
/// ``SymiFlags/BillingRetryAccessDays/range`` (0...60: Apple retries a failed renewal for up to 60 days), so a value
/// outside would silently mean something else than written; a non-integer would silently be the safe default. The
/// range and the clamp are SymiSchema's, the same the app's `SymiFlagValues` uses.
extension Linter {
    static let billingRetryKey = SymiFlags.BillingRetryAccessDays.key

    static func billingRetryFindings(in document: FlagDocument) -> [LintFinding] {
        guard let flag = document.flags[billingRetryKey] else { return [] }
        let base = JSONPath.appending("/flags", billingRetryKey)
        guard flag.type == .integer else {
            return [LintFinding(flag: billingRetryKey, rule: .billingRetryAccessDays, path: base + "/type",
                                message: "must be an integer flag (got \(flag.type.rawValue)); the app would ignore it for its safe default")]
        }
        var values = [(base + "/default", flag.defaultValue)]
        values += flag.rules.enumerated().map { ("\(base)/rules/\($0.offset)/value", $0.element.value) }
        return values.compactMap { path, value in
            let range = SymiFlags.BillingRetryAccessDays.range
            guard let days = value.integerValue else { return nil }
            let used = SymiFlags.BillingRetryAccessDays.clamped(days)
            guard Int64(used) != days else { return nil }
            return LintFinding(flag: billingRetryKey, rule: .billingRetryAccessDays, path: path,
                               message: "\(days) days is outside \(range.lowerBound)...\(range.upperBound) (Apple retries a failed renewal for up to \(range.upperBound) days); the app would use \(used)")
        }
    }
}
