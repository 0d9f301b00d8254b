import FlagKit

/// An install whose first install date is unknown (the app could not read or verify its `AppTransaction`) must
/// never be locked because the date is unknown: the early-user cohort exists to keep people open, and an
/// unknown date is far more often an early user offline at launch than a late one.
///
/// Checked for every locking flag (``lockingValues``) on its cohorts' conditions, cohort references followed,
/// each `firstInstallDate` predicate taken as an atom with its value for an absent date (`exists: false` holds,
/// every other operator does not) and its polarity (inside an odd number of `not`s it counts the other way):
/// 1. A rule that locks may not hold *because* the date is absent: no atom may push its condition towards true
///    when the date is absent (`exists: false`, or `not` around `before`/`after`/`exists: true`).
/// 2. A rule that does not lock may not be skipped *because* the date is absent when a later rule or the default
///    would then lock: when its condition has an atom that needs the date (`before`/`after` outside `not`) and
///    does not certainly hold for an absent date, every later locking rule whose cohort can hold for an absent
///    date, and a locking default, is a finding. The safe form locks with a rule for the known-late cohort
///    (`after` the switch) and leaves the default unlocked.
/// Conservative like the other lint rules: a finding may be a false alarm for cohorts that can never overlap.
extension Linter {
    /// The flags whose value locks something, and that value.
    static let lockingValues: [String: JSONValue] = [premiumKey: true]
    /// The attribute this rule protects.
    static let installDateName = BuiltInAttribute.firstInstallDate.rawValue

    static func installDateFindings(in document: FlagDocument) -> [LintFinding] {
        var findings: [LintFinding] = []
        for key in lockingValues.keys.sorted() {
            guard let flag = document.flags[key], let lock = lockingValues[key] else { continue }
            let base = JSONPath.appending("/flags", key)
            for (index, rule) in flag.rules.enumerated() {
                guard let cohort = rule.cohort else { continue }
                let atoms = installDateAtoms(inCohort: cohort, document)
                if rule.value == lock {
                    guard atoms.favoursAbsence else { continue }
                    findings.append(LintFinding(flag: key, rule: .unknownInstallDateNeverLocks, path: "\(base)/rules/\(index)",
                        message: "rule \(index) locks installs because their \(installDateName) is unknown (cohort \(cohort) holds through "
                            + "exists: false or a not around a date test); lock only a cohort that needs a known date, such as {\"after\": ...}"))
                    continue
                }
                guard atoms.needsPresence, absentTruth(ofCohort: cohort, document, depth: 0) != .yes else { continue }
                for (later, laterRule) in flag.rules.enumerated().dropFirst(index + 1) where laterRule.value == lock {
                    let reachable = laterRule.cohort.map { absentTruth(ofCohort: $0, document, depth: 0) != .no } ?? true
                    guard reachable else { continue }
                    findings.append(skipped(key, base, index, cohort, by: "rule \(later)", at: "\(base)/rules/\(later)"))
                }
                if flag.defaultValue == lock {
                    findings.append(skipped(key, base, index, cohort, by: "the default", at: base + "/default"))
                }
            }
        }
        return findings
    }

    private static func skipped(_ key: String, _ base: String, _ index: Int, _ cohort: String, by locker: String, at path: String) -> LintFinding {
        LintFinding(flag: key, rule: .unknownInstallDateNeverLocks, path: path,
                    message: "\(locker) locks installs whose \(installDateName) is unknown: they never match rule \(index) (cohort \(cohort)) "
                        + "that keeps known early installs open; keep the default unlocked and lock with a rule for "
                        + "{\"\(installDateName)\": {\"after\": ...}} instead")
    }

    /// Whether some `firstInstallDate` atom pushes a condition towards true (`favoursAbsence`) or towards false
    /// (`needsPresence`) when the date is absent.
    struct InstallDateAtoms {
        var favoursAbsence = false
        var needsPresence = false
    }

    static func installDateAtoms(inCohort name: String, _ document: FlagDocument) -> InstallDateAtoms {
        var atoms = InstallDateAtoms()
        var visiting: Set<String> = []
        func visit(_ condition: Condition, positive: Bool) {
            for member in condition.members {
                switch member {
                case .attribute(let attribute, let predicates) where attribute == installDateName:
                    for predicate in predicates {
                        let holdsWhenAbsent = predicate.op == .exists && predicate.operand == false
                        if holdsWhenAbsent == positive { atoms.favoursAbsence = true } else { atoms.needsPresence = true }
                    }
                case .attribute: break
                case .all(let conditions), .any(let conditions): conditions.forEach { visit($0, positive: positive) }
                case .not(let inner): visit(inner, positive: !positive)
                case .cohort(let other): visitCohort(other, positive: positive)
                }
            }
        }
        func visitCohort(_ cohort: String, positive: Bool) {
            guard let condition = document.cohorts[cohort], visiting.insert(cohort).inserted else { return }
            visit(condition, positive: positive)
            visiting.remove(cohort)
        }
        visitCohort(name, positive: true)
        return atoms
    }

    /// Three-valued truth (Kleene) of a condition for an install whose date is absent, every other attribute unknown.
    enum Truth: Equatable {
        case yes, no, unknown

        var negated: Truth { self == .yes ? .no : (self == .no ? .yes : .unknown) }
    }

    static func absentTruth(ofCohort name: String, _ document: FlagDocument, depth: Int) -> Truth {
        guard depth < 64, let condition = document.cohorts[name] else { return .unknown }
        return absentTruth(of: condition, document, depth: depth)
    }

    static func absentTruth(of condition: Condition, _ document: FlagDocument, depth: Int) -> Truth {
        let truths = condition.members.map { member -> Truth in
            switch member {
            case .attribute(let attribute, let predicates) where attribute == installDateName:
                predicates.allSatisfy { $0.op == .exists && $0.operand == false } ? .yes : .no
            case .attribute: .unknown
            case .all(let conditions): conjunction(conditions.map { absentTruth(of: $0, document, depth: depth) })
            case .any(let conditions): conjunction(conditions.map { absentTruth(of: $0, document, depth: depth).negated }).negated
            case .not(let inner): absentTruth(of: inner, document, depth: depth).negated
            case .cohort(let other): absentTruth(ofCohort: other, document, depth: depth + 1)
            }
        }
        return conjunction(truths)
    }

    private static func conjunction(_ truths: [Truth]) -> Truth {
        if truths.contains(.no) { return .no }
        return truths.contains(.unknown) ? .unknown : .yes
    }
}
