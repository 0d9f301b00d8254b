import FlagKit

/// What OFREP evaluates against: one environment's current document, as the service holds it in memory.
///
/// The service builds one per published version (next to its other encoded bytes) and hands it out
/// through the lookup closure given to `OFREPRoutes.register`; building it hashes the document once,
/// so that every bulk `ETag` can be derived without touching the document again.
public struct OFREPSnapshot: Sendable {
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

    /// A snapshot of `document` at `version` in `environment`; pass `contentHash` when it is already
    /// known (the store keeps it with every version) so the document is not encoded and hashed again.
    public init(document: FlagDocument, version: Int, environment: String, contentHash: String? = nil) {
        self.document = document
        self.version = version
        self.environment = environment
        self.contentHash = contentHash ?? document.contentHash
        self.sortedFlagKeys = document.sortedFlagKeys
    }
}
