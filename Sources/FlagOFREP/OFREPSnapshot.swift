import FlagKit
import HTTPServer

/// What OFREP evaluates against: one environment's current document, as the service holds it in memory.
///
/// The service builds one per published version (next to its other encoded bytes) and hands it out
/// through the lookup closure given to `OFREPRoutes.register`; building it hashes the document once,
/// so that every bulk `ETag` can be derived without touching the document again, and encodes every
/// answer a flag can give (`OFREPFlagAnswers`), so that an evaluation only picks one.
///
/// A class: handing it out per request costs one retain, not one per member.
public final class OFREPSnapshot: Sendable {
    /// The validated document.
    public let document: FlagDocument
    /// Its version number in the environment's history (goes into `metadata.version`).
    public let version: Int
    /// The environment's name (goes into `metadata.environment`).
    public let environment: String
    /// SHA-256 of the document's canonical bytes: part of every bulk `ETag`, so that a re-created
    /// environment whose version numbers start again at 1 cannot revive a client's stale cache.
    public let contentHash: String
    /// The flag keys in UTF-8 order: bulk responses list flags in this stable order.
    public let sortedFlagKeys: [String]
    /// Every flag's prepared answers, by key.
    let answers: [String: OFREPFlagAnswers]
    /// The same, in `sortedFlagKeys` order (bulk responses walk this without hashing keys).
    let sortedAnswers: [OFREPFlagAnswers]

    /// A snapshot of `document` at `version` in `environment`; pass `contentHash` when it is already
    /// known (the store keeps it with every version) so the document is not encoded and hashed again.
    public init(document: FlagDocument, version: Int, environment: String, contentHash: String? = nil) {
        self.document = document
        self.version = version
        self.environment = environment
        self.contentHash = contentHash ?? document.contentHash
        sortedFlagKeys = document.sortedFlagKeys
        var answers: [String: OFREPFlagAnswers] = [:]
        answers.reserveCapacity(sortedFlagKeys.count)
        var sorted: [OFREPFlagAnswers] = []
        sorted.reserveCapacity(sortedFlagKeys.count)
        for key in sortedFlagKeys {
            guard let flag = document.flags[key] else { continue }
            let prepared = OFREPFlagAnswers(key: key, flag: flag, environment: environment, version: version)
            answers[key] = prepared
            sorted.append(prepared)
        }
        self.answers = answers
        sortedAnswers = sorted
    }
}
