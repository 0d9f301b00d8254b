import FlagKit
import Foundation
import OutcomeAnalysis

/// A guard's rule and decisions as the API and the store keep them: the rule is `GuardRule`'s own Codable JSON (every
/// field written), a decision is its verdict and figures with the one-line message and the time it was made.
extension GuardRule {
    /// The rule in `value` (`GuardRule`'s JSON), validated; a `GuardRuleError` naming the field otherwise (`rule` when
    /// the value is no object).
    static func decoding(_ value: JSONValue) throws(GuardRuleError) -> GuardRule {
        guard case .object = value else { throw GuardRuleError(field: "rule", message: "must be a JSON object") }
        do {
            return try JSONDecoder().decode(GuardRule.self, from: Data(value.canonicalBytes))
        } catch let error as GuardRuleError {
            throw error
        } catch {
            throw GuardRuleError(field: "rule", message: "cannot be read: \(error)")
        }
    }

    /// The rule with every field, as it is stored (a default that changes later does not change a stored rule).
    var jsonValue: JSONValue {
        guard let bytes = try? JSONEncoder().encode(self), let parsed = try? JSONParser.parse(Array(bytes)) else {
            // Unreachable: every field is a string or a finite number (`validate` refuses the others).
            return .object(["metric": .string(metric.rawValue), "action": .string(action.rawValue)])
        }
        return parsed.value
    }
}

extension GuardDecision {
    /// The decision as the guard's `lastDecision`, its audit line's detail and its webhook event carry it: the verdict,
    /// every figure (a figure that is not finite as `null`), the message and `at` (the jobs' clock).
    func jsonValue(rule: GuardRule, at: Int64) -> JSONValue {
        func number(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }
        return .object([
            "verdict": .string(verdict.rawValue), "observed": number(figures.observed), "baseline": number(figures.baseline),
            "threshold": figures.threshold.map(number) ?? .null, "count": .integer(Int64(figures.count)),
            "expectedCount": number(figures.expectedCount), "pValue": number(figures.pValue),
            "perLookAlpha": number(figures.perLookAlpha), "hours": .integer(Int64(figures.hours)),
            "message": .string(message(for: rule)), "at": .string(RFC3339.string(milliseconds: at)),
        ])
    }

    /// The message naming guard `id`: `guard 7 on refunds tripped: ...` (a rollback's publish message).
    func message(for rule: GuardRule, id: Int64) -> String {
        let text = message(for: rule)
        return text.hasPrefix("guard ") ? "guard \(id) " + text.dropFirst("guard ".count) : "guard \(id): \(text)"
    }
}
