import FlagKit
import Foundation

/// One immutable set of values: a document (or the app's safe defaults) evaluated for one install's context.
///
/// Every flag is evaluated once when the snapshot is made, so reading a value is a dictionary lookup; the client
/// swaps whole snapshots, so a reader never sees half of one document and half of another. A class so that
/// handing one out costs a single retain. Typed reads are FlagKit's ``EvaluatedFlags`` lookups (`bool`, `string`,
/// `integer`, `number`, `json`, each with its details); an app's own typed values build on them.
public final class FlagSnapshot: EvaluatedFlags {
    /// Where these values came from.
    public let source: ValueSource
    /// The context the document was evaluated for.
    public let context: EvaluationContext
    /// The envelope (version metadata and document) when the values come from the server or the cache.
    public let envelope: FlagEnvelope?
    /// The evaluated document: the envelope's, or the app's safe defaults (``FlagClientConfiguration/safeDefaults``).
    public let document: FlagDocument?
    /// Every flag of the document, evaluated for ``context``.
    public let results: [String: EvaluationResult]

    /// Evaluates `envelope`'s document (or `safeDefaults` when `envelope` is `nil`) for `context`.
    /// `package`: the paid-day rehearsal (Benchmarks/PaidDayRehearsal) evaluates exactly what the app would.
    package init(envelope: FlagEnvelope?, safeDefaults: FlagDocument?, source: ValueSource, context: EvaluationContext) {
        self.source = source
        self.context = context
        self.envelope = envelope
        let document = envelope?.document ?? safeDefaults
        self.document = document
        results = document?.evaluateAll(context: context, version: envelope?.version) ?? [:]
    }

    /// The same document evaluated for another context (another install id, a changed locale), same source.
    public func evaluated(for context: EvaluationContext) -> FlagSnapshot {
        FlagSnapshot(envelope: envelope, safeDefaults: document, source: source, context: context)
    }

    /// `document` evaluated for `context` as if version `version` had just been fetched, or `safeDefaults` when
    /// `document` is `nil`: for the tests of other modules in this package (the app gets its snapshots from a
    /// ``FlagClient``).
    package convenience init(document: FlagDocument?, version: Int = 1, safeDefaults: FlagDocument? = nil,
                             context: EvaluationContext) {
        guard let document else {
            self.init(envelope: nil, safeDefaults: safeDefaults, source: .safeDefaults, context: context)
            return
        }
        let envelope = FlagEnvelope(environment: "test", version: version, contentHash: document.contentHash, document: document)
        self.init(envelope: envelope, safeDefaults: nil, source: .server(version: version, fetchedAt: Date()), context: context)
    }

    /// These values with another source (a `304` confirmed them): same document, same evaluation.
    func withSource(_ source: ValueSource) -> FlagSnapshot {
        FlagSnapshot(envelope: envelope, safeDefaults: document, source: source, context: context)
    }

    /// The evaluation of any flag, as FlagKit gave it (`FLAG_NOT_FOUND` for an unknown key).
    public func result(_ key: String) -> EvaluationResult {
        results[key] ?? .failure(key: key, code: .flagNotFound, message: "flag \"\(key)\" is not in the document",
                                 version: envelope?.version)
    }
}
