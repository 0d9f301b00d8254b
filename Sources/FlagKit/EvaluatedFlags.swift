/// A document's flags evaluated for one context: what typed readers build on.
///
/// The client's snapshot is one; an app's own schema (its flag names, typed values and safe fallbacks) reads through
/// the lookups of ``EvaluatedFlags`` (`EvaluatedFlags+Lookup.swift`) and so needs nothing but FlagKit.
public protocol EvaluatedFlags: Sendable {
    /// The context the flags were evaluated for (install id, app version, locale, ...).
    var context: EvaluationContext { get }

    /// The evaluation of one flag as FlagKit gave it; `FLAG_NOT_FOUND` for a key the document lacks.
    func result(_ key: String) -> EvaluationResult
}
