import FlagKit

/// `billingRetryAccessDays`: the courtesy window after a failed renewal. The app clamps it to 0...60 (Apple retries a
/// failed renewal for up to 60 days; `SymiSafeDefaults.billingRetryAccessDaysRange` in FlagClient), so a value outside
/// would silently mean something else than written; a non-integer would silently be the safe default.
extension Linter {
    static let billingRetryKey = "billingRetryAccessDays"
    /// The days the app accepts; the same bounds as FlagClient's clamp.
    static let billingRetryAccessDaysRange: ClosedRange<Int64> = 0...60

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
            guard let days = value.integerValue, !billingRetryAccessDaysRange.contains(days) else { return nil }
            return LintFinding(flag: billingRetryKey, rule: .billingRetryAccessDays, path: path,
                               message: "\(days) days is outside \(billingRetryAccessDaysRange.lowerBound)...\(billingRetryAccessDaysRange.upperBound) (Apple retries a failed renewal for up to 60 days); the app would use \(min(max(days, billingRetryAccessDaysRange.lowerBound), billingRetryAccessDaysRange.upperBound))")
        }
    }
}
