import FlagKit

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
    /// The environment the server says this document belongs to.
    public let environment: String
    /// The version number on the server (1, 2, ...); a rollback is published as a new, higher version.
    public let version: Int
    /// SHA-256 (hex) of the document's canonical bytes, checked against the document received.
    public let contentHash: String
    /// When the version was published (RFC 3339 text as sent), if sent.
    public let publishedAt: String?
    /// Who published it, if sent.
    public let author: String?
    /// The publish message, if sent.
    public let message: String?
    /// The version whose content a rollback republished, if this version is a rollback.
    public let rolledBackFrom: Int?
    /// The server's epoch (0 when not sent): a restore from a backup starts a larger one. Versions compare only
    /// within one epoch; a document of a larger epoch is newer whatever its version number.
    public let epoch: Int64
    /// The validated document.
    public let document: FlagDocument

    /// Creates an envelope from parts already validated (tests and tools; the client decodes bytes).
    public init(environment: String, version: Int, contentHash: String, publishedAt: String? = nil, author: String? = nil,
                message: String? = nil, rolledBackFrom: Int? = nil, epoch: Int64 = 0, document: FlagDocument) {
        self.environment = environment
        self.version = version
        self.contentHash = contentHash
        self.publishedAt = publishedAt
        self.author = author
        self.message = message
        self.rolledBackFrom = rolledBackFrom
        self.epoch = epoch
        self.document = document
    }

    /// Parses and validates an envelope: well-formed JSON without duplicate keys, an object with a non-empty
    /// `environment`, a positive integer `version`, a 64-hex-digit `contentHash` equal to the SHA-256 of the
    /// document's canonical form, and a `document` that FlagKit accepts. Unknown members are ignored, so the
    /// server may add metadata without breaking installed apps.
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
        guard let environment = root["environment"]?.stringValue, !environment.isEmpty else {
            throw .notAnEnvelope(path: "/environment", problem: "must be a non-empty string")
        }
        guard let number = root["version"]?.integerValue, number >= 1, number <= Int64(Int32.max) else {
            throw .notAnEnvelope(path: "/version", problem: "must be a positive integer")
        }
        guard let contentHash = root["contentHash"]?.stringValue, contentHash.utf8.count == 64,
              contentHash.utf8.allSatisfy(Self.isLowerHex) else {
            throw .notAnEnvelope(path: "/contentHash", problem: "must be 64 lowercase hex digits (SHA-256)")
        }
        guard let documentJSON = root["document"] else { throw .notAnEnvelope(path: "/document", problem: "missing") }
        let document: FlagDocument
        do {
            document = try FlagDocument(validating: documentJSON)
        } catch {
            // Paths relative to the envelope, so a log line points at the right place in the body.
            throw .invalidDocument(error.issues.map { ValidationIssue(path: "/document" + $0.path, message: $0.message) })
        }
        let actual = document.contentHash
        guard actual == contentHash else { throw .contentHashMismatch(announced: contentHash, actual: actual) }
        let rolledBackFrom: Int?
        switch root["rolledBackFrom"] {
        case nil, .null?: rolledBackFrom = nil
        case .integer(let from)? where from >= 1 && from <= Int64(Int32.max): rolledBackFrom = Int(from)
        default: throw .notAnEnvelope(path: "/rolledBackFrom", problem: "must be a positive integer")
        }
        let epoch: Int64
        switch root["epoch"] {
        case nil, .null?: epoch = 0
        case .integer(let value)? where value >= 0: epoch = value
        default: throw .notAnEnvelope(path: "/epoch", problem: "must be a non-negative integer")
        }
        return FlagEnvelope(environment: environment, version: Int(number), contentHash: contentHash,
                            publishedAt: root["publishedAt"]?.stringValue, author: root["author"]?.stringValue,
                            message: root["message"]?.stringValue, rolledBackFrom: rolledBackFrom, epoch: epoch,
                            document: document)
    }

    /// Whether this envelope is older than `other`: of an earlier epoch, or of the same epoch with a lower version.
    /// A client refuses older documents (a stale cache or CDN replaying history) but takes a restored server's.
    public func isOlder(than other: FlagEnvelope) -> Bool {
        epoch != other.epoch ? epoch < other.epoch : version < other.version
    }

    /// The entity tag flagserver gives this version (`docs/api.md`): `"<version>-<first 16 hex digits of
    /// contentHash>"`. The client sends this as `If-None-Match`, never a header it was handed: a validator that
    /// does not belong to the body it came with (a CDN mixing headers and bodies), holds a control character or
    /// is 20 KB long would otherwise make every later request a stale 304 or fail before it is sent.
    public var entityTag: String {
        "\"\(version)-\(contentHash.prefix(16))\""
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
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
