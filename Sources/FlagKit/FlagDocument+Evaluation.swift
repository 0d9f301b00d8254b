/// Evaluation: the same code on the server, in the app and in `flagctl`.
extension FlagDocument {
    /// Evaluates one flag for a context.
    ///
    /// Prerequisites first (any unmet: the default, reason `DISABLED`); then rules in order, the
    /// first whose cohort matches and whose rollout includes the install giving the value (an install
    /// outside a rollout, or without an `installId`, falls through); then the default.
    public func evaluate(_ key: String, context: EvaluationContext, version: Int? = nil) -> EvaluationResult {
        guard let flag = flags[key] else {
            return .failure(key: key, code: .flagNotFound, message: "flag \"\(key)\" is not in the document", version: version)
        }
        let outcome = outcome(key: key, flag: flag, context: context)
        return EvaluationResult(key: key, value: outcome.value(of: flag), variant: outcome.variant, reason: outcome.reason,
                                version: version)
    }

    /// Evaluates every flag, keyed by flag key.
    public func evaluateAll(context: EvaluationContext, version: Int? = nil) -> [String: EvaluationResult] {
        var results: [String: EvaluationResult] = [:]
        results.reserveCapacity(flags.count)
        for key in flags.keys { results[key] = evaluate(key, context: context, version: version) }
        return results
    }

    /// Which of `flag`'s values (stored under `key`) applies to `context`, without building a result:
    /// OFREP answers with bytes prepared per outcome (`FlagEvaluationOutcome`), so it needs only this.
    package func outcome(key: String, flag: Flag, context: EvaluationContext) -> FlagEvaluationOutcome {
        resolve(key: key, flag: flag, context: context, depth: 0)
    }

    /// Prerequisite chains are acyclic in a validated document; the depth bound is a second guard
    /// so that no input can recurse without end.
    private static let maximumPrerequisiteDepth = 64

    private func resolve(key: String, flag: Flag, context: EvaluationContext, depth: Int) -> FlagEvaluationOutcome {
        for (requiredKey, requiredValue) in flag.requires {
            guard depth < Self.maximumPrerequisiteDepth, let prerequisite = flags[requiredKey],
                  resolve(key: requiredKey, flag: prerequisite, context: context, depth: depth + 1).value(of: prerequisite)
                    == requiredValue
            else {
                return .defaultValue(.disabled)
            }
        }
        if flag.rules.isEmpty { return .defaultValue(.staticValue) }
        for (index, rule) in flag.rules.enumerated() {
            if let cohort = rule.cohort, !isMember(context, of: cohort, depth: 0) { continue }
            guard let rollout = rule.rollout else { return .rule(index, .targetingMatch) }
            // An empty id is no id (the bucketing contract, docs/flag-document.md): every install that failed to
            // make one would otherwise share one bucket, all in or all out of every rollout.
            guard let installId = context.installId, !installId.isEmpty,
                  rollout.includes(bucket: Bucketing.bucket(salt: flag.salt ?? key, unit: installId)) else { continue }
            return .rule(index, .split)
        }
        return .defaultValue(.defaultValue)
    }

    private static let commonVariantNames = (0..<32).map { "rule-\($0)" }

    /// `rule-N`, without building a string per evaluation for the usual rule counts.
    static func variantName(_ index: Int) -> String {
        index < commonVariantNames.count ? commonVariantNames[index] : "rule-\(index)"
    }

    /// Whether a context belongs to a named cohort (false for an unknown name).
    public func isMember(_ context: EvaluationContext, of cohort: String) -> Bool {
        isMember(context, of: cohort, depth: 0)
    }

    private func isMember(_ context: EvaluationContext, of cohort: String, depth: Int) -> Bool {
        guard depth < Self.maximumPrerequisiteDepth, let condition = cohorts[cohort] else { return false }
        return matches(condition, context, depth: depth)
    }

    private func matches(_ condition: Condition, _ context: EvaluationContext, depth: Int) -> Bool {
        condition.members.allSatisfy { member in
            switch member {
            case .attribute(let name, let predicates):
                let builtIn = BuiltInAttribute(rawValue: name)
                let value = context.attribute(name, builtIn: builtIn)
                // Only predicates on version attributes carry parsed versions (see `Predicate.versions`).
                let version = predicates.contains { !$0.versions.isEmpty } ? context.version(of: name) : nil
                // Only `before`/`after` carry a parsed operand; the context parsed its dates when it was made.
                let instant = predicates.contains { $0.instant != nil } ? context.instant(of: name, builtIn: builtIn) : nil
                return predicates.allSatisfy { $0.matches(value, version: version, instant: instant) }
            case .all(let conditions): return conditions.allSatisfy { matches($0, context, depth: depth) }
            case .any(let conditions): return conditions.contains { matches($0, context, depth: depth) }
            case .not(let inner): return !matches(inner, context, depth: depth)
            case .cohort(let name): return isMember(context, of: name, depth: depth + 1)
            }
        }
    }
}

/// Which value an evaluation chose: a rule's (by index) or the flag's default, and why.
/// Every successful evaluation of a flag is one of `rules.count + 3` outcomes at most.
package enum FlagEvaluationOutcome: Sendable, Equatable {
    /// Rule `index` gave the value (`targetingMatch` or `split`).
    case rule(Int, EvaluationReason)
    /// The flag's default (`staticValue`, `defaultValue` or `disabled`).
    case defaultValue(EvaluationReason)

    /// The reason reported for this outcome.
    package var reason: EvaluationReason {
        switch self {
        case .rule(_, let reason), .defaultValue(let reason): reason
        }
    }

    /// `default` or `rule-N`.
    package var variant: String {
        switch self {
        case .rule(let index, _): FlagDocument.variantName(index)
        case .defaultValue: "default"
        }
    }

    /// The value this outcome gives for `flag`.
    package func value(of flag: Flag) -> JSONValue {
        switch self {
        case .rule(let index, _): index < flag.rules.count ? flag.rules[index].value : flag.defaultValue
        case .defaultValue: flag.defaultValue
        }
    }
}
