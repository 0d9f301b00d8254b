/// The body of `GET /v1/environments/{env}/document`: one published version of an environment's document with
/// its metadata (the service's `docs/api.md`), validated completely before the client trusts any of it.
///
/// ```json
/// {"author": "...", "contentHash": "<sha256 hex>", "document": {...}, "environment": "production",
///  "message": "...", "publishedAt": "2026-11-29T15:30:00.123Z", "version": 12}
/// ```
///
/// The cache stores these bytes as received, so a launch from the cache runs exactly this validation again.
public struct FlagEnvelope: Sendable, Equatable {
    /// The version's metadata (``VersionMetadata``: the one wire contract of server, client and flagctl).
    public let metadata: VersionMetadata
    /// The validated document.
    public let document: FlagDocument

    /// The environment the server says this document belongs to.
    public var environment: String { metadata.environment }
    /// The version number on the server (1, 2, ...); a rollback is published as a new, higher version.
    public var version: Int { metadata.version }
    /// SHA-256 (hex) of the document's canonical bytes, checked against the document received.
    public var contentHash: String { metadata.contentHash }
    /// When the version was published (RFC 3339 text as sent), if sent.
    public var publishedAt: String? { metadata.publishedAt }
    /// Who published it, if sent.
    public var author: String? { metadata.author }
    /// The publish message, if sent.
    public var message: String? { metadata.message }
    /// The version whose content a rollback republished, if this version is a rollback.
    public var rolledBackFrom: Int? { metadata.rolledBackFrom }
    /// The server's epoch (0 when not sent): a restore from a backup starts a larger one. Versions compare only
    /// within one epoch; a document of a larger epoch is newer whatever its version number.
    public var epoch: Int64 { metadata.epoch }

    /// An envelope from its metadata and document, already validated.
    public init(metadata: VersionMetadata, document: FlagDocument) {
        self.metadata = metadata
        self.document = document
    }

    /// Creates an envelope from parts already validated (tests and tools; the client decodes bytes).
    public init(environment: String, version: Int, contentHash: String, publishedAt: String? = nil, author: String? = nil,
                message: String? = nil, rolledBackFrom: Int? = nil, epoch: Int64 = 0, document: FlagDocument) {
        self.init(metadata: VersionMetadata(environment: environment, version: version, contentHash: contentHash,
                                            publishedAt: publishedAt, author: author, message: message,
                                            rolledBackFrom: rolledBackFrom, epoch: epoch),
                  document: document)
    }

    /// Parses and validates an envelope: well-formed JSON without duplicate keys, an object whose metadata
    /// ``VersionMetadata/init(validating:)`` accepts, and a `document` that FlagKit accepts and that hashes to the
    /// announced `contentHash`. Unknown members are ignored, so the server may add metadata without breaking
    /// installed apps.
    public static func decode<Bytes: Sequence>(_ bytes: Bytes) throws(FlagEnvelopeError) -> FlagEnvelope
    where Bytes.Element == UInt8 {
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw .malformedJSON(error)
        }
        if let path = parsed.duplicateKeyPaths.first { throw .notAnEnvelope(path: path, problem: "duplicate key") }
        guard let root = parsed.value.objectValue else {
            throw .notAnEnvelope(path: "", problem: "must be an object (got \(parsed.value.typeName))")
        }
        return try FlagEnvelope(validating: root)
    }

    /// Validates an envelope already parsed into its members (see ``decode(_:)``).
    public init(validating root: [String: JSONValue]) throws(FlagEnvelopeError) {
        let metadata = try VersionMetadata(validating: root)
        guard let documentJSON = root["document"] else { throw .notAnEnvelope(path: "/document", problem: "missing") }
        let document: FlagDocument
        do {
            document = try FlagDocument(validating: documentJSON)
        } catch {
            // Paths relative to the envelope, so a log line points at the right place in the body.
            throw .invalidDocument(error.issues.map { ValidationIssue(path: "/document" + $0.path, message: $0.message) })
        }
        let actual = document.contentHash
        guard actual == metadata.contentHash else { throw .contentHashMismatch(announced: metadata.contentHash, actual: actual) }
        self.init(metadata: metadata, document: document)
    }

    /// Whether this envelope is older than `other`: of an earlier epoch, or of the same epoch with a lower version.
    /// A client refuses older documents (a stale cache or CDN replaying history) but takes a restored server's.
    public func isOlder(than other: FlagEnvelope) -> Bool {
        epoch != other.epoch ? epoch < other.epoch : version < other.version
    }

    /// The entity tag flagserver gives this version (``VersionMetadata/entityTag(version:contentHash:)``). The
    /// client sends this as `If-None-Match`, never a header it was handed: a validator that does not belong to the
    /// body it came with (a CDN mixing headers and bodies), holds a control character or is 20 KB long would
    /// otherwise make every later request a stale 304 or fail before it is sent.
    public var entityTag: String { metadata.entityTag }
}

/// Why a response body (or a cached one) is not an envelope the client may use. Keeps the JSON path of the problem.
public enum FlagEnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON at all (an HTML error page, garbage, a truncated body), with line and column.
    case malformedJSON(JSONSyntaxError)
    /// JSON, but not the envelope's shape: the member at `path` is missing or wrong.
    case notAnEnvelope(path: String, problem: String)
    /// The envelope is fine, the document is not: every FlagKit issue, paths starting with `/document`.
    case invalidDocument([ValidationIssue])
    /// The document does not hash to the announced `contentHash`: altered on the way, or a server bug.
    case contentHashMismatch(announced: String, actual: String)

    /// One line (the first few issues for an invalid document).
    public var description: String {
        switch self {
        case .malformedJSON(let error): "malformed JSON at \(error)"
        case .notAnEnvelope(let path, let problem): "not a document envelope: \(path.isEmpty ? "/" : path): \(problem)"
        case .invalidDocument(let issues):
            "invalid document: " + issues.prefix(5).map(\.description).joined(separator: "; ")
                + (issues.count > 5 ? " (and \(issues.count - 5) more)" : "")
        case .contentHashMismatch(let announced, let actual): "contentHash \(announced) announced, document hashes to \(actual)"
        }
    }
}
