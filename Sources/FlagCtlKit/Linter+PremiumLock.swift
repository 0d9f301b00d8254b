import FlagKit
import SymiSchema

/// `premiumFeaturesLocked` must never be true for an install whose `monetizationEnabled` is false:
/// locking features while the subscription cannot even be shown would lock people out for nothing.
///
/// The rule, checked statically and conservatively (a finding may be a false alarm when two cohorts
/// can in fact never overlap, never the other way round):
/// 1. premiumFeaturesLocked is *guarded* when its prerequisites make its rules unreachable unless
///    monetizationEnabled is true: it `requires` monetizationEnabled = true, or it requires a flag X = v
///    where X is guarded and X's default is not v. A guarded flag yields its default whenever
///    monetizationEnabled is not true, so only its default matters: a default of true is a finding
///    when monetizationEnabled can be non-true for anyone.
/// 2. Unguarded, each rule giving true is a finding when monetizationEnabled can be non-true for a
///    member of the rule's cohort (everyone for a rule without cohort), and so is a default of true.
/// 3. "monetizationEnabled can be non-true for cohort C": its rules are walked in order; every rule
///    before the first one that certainly covers all of C (no cohort, the same cohort, or a cohort C's
///    condition implies, without a partial rollout) may apply to some member, so its value counts; the
///    covering rule's value counts; the default counts when no rule covers C or monetizationEnabled has
///    prerequisites of its own. Any counted value other than `true` (or monetizationEnabled missing) means yes.
extension Linter {
    static let monetizationKey = SymiFlags.Key.monetizationEnabled
    static let premiumKey = SymiFlags.Key.premiumFeaturesLocked

    static func premiumLockFindings(in document: FlagDocument) -> [LintFinding] {
        guard let premium = document.flags[premiumKey] else { return [] }
        let base = JSONPath.appending("/flags", premiumKey)
        let advice = "add \"requires\": {\"\(monetizationKey)\": true}"
        if isGuarded(premiumKey, in: document, depth: 0) {
            guard premium.defaultValue == true, let witness = nonTrueMonetization(forCohort: nil, in: document) else { return [] }
            return [LintFinding(flag: premiumKey, rule: .premiumLockNeedsMonetization, path: base + "/default",
                                message: "default true applies exactly when the prerequisite fails, i.e. to installs where \(witness); the default must be false")]
        }
        var findings: [LintFinding] = []
        for (index, rule) in premium.rules.enumerated() where rule.value == true {
            guard let witness = nonTrueMonetization(forCohort: rule.cohort, in: document) else { continue }
            let who = rule.cohort.map { "cohort \($0)" } ?? "everyone"
            findings.append(LintFinding(flag: premiumKey, rule: .premiumLockNeedsMonetization, path: "\(base)/rules/\(index)",
                                        message: "rule \(index) locks premium features for \(who), where \(witness); \(advice)"))
        }
        if premium.defaultValue == true, let witness = nonTrueMonetization(forCohort: nil, in: document) {
            findings.append(LintFinding(flag: premiumKey, rule: .premiumLockNeedsMonetization, path: base + "/default",
                                        message: "default true locks premium features for installs where \(witness); \(advice)"))
        }
        return findings
    }

    /// Whether the flag's prerequisites make its rules unreachable unless monetizationEnabled is true.
    static func isGuarded(_ key: String, in document: FlagDocument, depth: Int) -> Bool {
        guard depth < 64, let flag = document.flags[key] else { return false }
        if flag.requires[monetizationKey] == true { return true }
        return flag.requires.contains { required, value in
            guard required != monetizationKey, let prerequisite = document.flags[required] else { return false }
            return prerequisite.defaultValue != value && isGuarded(required, in: document, depth: depth + 1)
        }
    }

    /// Where monetizationEnabled can be something other than true for a member of `cohort` (nil:
    /// anyone), in words; nil when it is certainly true for all of them.
    static func nonTrueMonetization(forCohort cohort: String?, in document: FlagDocument) -> String? {
        guard let monetization = document.flags[monetizationKey] else { return "\(monetizationKey) is not in the document" }
        var covered = false
        for (index, rule) in monetization.rules.enumerated() {
            if rule.value != true { return "\(monetizationKey) can be \(rule.value) (its rule \(index))" }
            if rule.rollout.map({ $0.thousandths == 100_000 }) ?? true, covers(rule.cohort, cohort, in: document) {
                covered = true
                break
            }
        }
        if (!covered || !monetization.requires.isEmpty), monetization.defaultValue != true {
            return "\(monetizationKey) can be \(monetization.defaultValue) (its default)"
        }
        return nil
    }

    /// Whether every member of `cohort` (nil: everyone) is certainly in `ruleCohort` (nil: everyone).
    static func covers(_ ruleCohort: String?, _ cohort: String?, in document: FlagDocument) -> Bool {
        guard let ruleCohort else { return true }
        guard let cohort else { return false }
        if ruleCohort == cohort { return true }
        guard let condition = document.cohorts[cohort], let ruleCondition = document.cohorts[ruleCohort] else { return false }
        // All members must hold, so a condition containing all of another's members (or naming it) implies it.
        return condition.members.contains(.cohort(ruleCohort)) || ruleCondition.members.allSatisfy(condition.members.contains)
    }
}
