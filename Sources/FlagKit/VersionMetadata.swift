/// One published version's metadata as the API carries it (`docs/api.md`): the envelope of
/// `GET .../document` and `.../versions/{n}` without its document, and one entry of a history page.
///
/// The one home of the wire contract: the server encodes with ``members``, the app's client and flagctl decode
/// with ``init(validating:)``, and the entity tag grammar is ``entityTag(version:contentHash:)``.
public struct VersionMetadata: Sendable, Equatable {
    /// The environment the version belongs to.
    public var environment: String
    /// 1, 2, ... per environment; a rollback is published as a new, higher version.
    public var version: Int
    /// SHA-256 (64 lowercase hex digits) of the document's canonical bytes.
    public var contentHash: String
    /// When it was published: RFC 3339 UTC with milliseconds (`2026-11-29T15:30:00.123Z`), if sent.
    public var publishedAt: String?
    /// Who published it (a token's name), if sent.
    public var author: String?
    /// The change message, if sent.
    public var message: String?
    /// The version whose content a rollback republished.
    public var rolledBackFrom: Int?
    /// The database's epoch (0 when not sent): versions compare only within one (a restore starts a larger one).
    public var epoch: Int64

    /// Metadata from its parts.
    public init(environment: String, version: Int, contentHash: String, publishedAt: String? = nil, author: String? = nil,
                message: String? = nil, rolledBackFrom: Int? = nil, epoch: Int64 = 0) {
        self.environment = environment
        self.version = version
        self.contentHash = contentHash
        self.publishedAt = publishedAt
        self.author = author
        self.message = message
        self.rolledBackFrom = rolledBackFrom
        self.epoch = epoch
    }

    /// How a representation of a version is coded on the wire (RFC 9110 §8.4).
    public enum Coding: String, Sendable, CaseIterable {
        /// The envelope's bytes as they are.
        case identity
        /// The same bytes gzip-compressed (`Content-Encoding: gzip`).
        case gzip
    }

    /// The strong entity tag of a version's representation: `"<version>-<first 16 hex digits of contentHash>"`,
    /// and for the gzip-coded one the same with `-gzip` before the closing quote. The version is part of it, so a
    /// rollback that republishes old content gets a new tag (no ABA on If-Match); the coding is, because two
    /// representations with different bytes must not share a strong tag (RFC 9110 §8.8.3).
    public static func entityTag(version: Int, contentHash: String, coding: Coding = .identity) -> String {
        let identity = "\"\(version)-\(contentHash.prefix(16))\""
        switch coding {
        case .identity: return identity
        case .gzip: return gzipEntityTag(ofIdentityTag: identity)
        }
    }

    /// The gzip representation's tag of the version whose identity tag is `identityTag`: a write's `If-Match`
    /// may carry either (a browser that was sent the gzip body holds that tag).
    public static func gzipEntityTag(ofIdentityTag identityTag: String) -> String {
        String(identityTag.dropLast()) + "-gzip\""
    }

    /// This version's entity tag (``entityTag(version:contentHash:)``).
    public var entityTag: String { Self.entityTag(version: version, contentHash: contentHash) }

    /// The members as the server sends them (absent optionals and a zero epoch are left out).
    public var members: [String: JSONValue] {
        var object: [String: JSONValue] = [
            "environment": .string(environment), "version": .integer(Int64(version)), "contentHash": .string(contentHash),
        ]
        if let publishedAt { object["publishedAt"] = .string(publishedAt) }
        if let author { object["author"] = .string(author) }
        if let message { object["message"] = .string(message) }
        if let rolledBackFrom { object["rolledBackFrom"] = .integer(Int64(rolledBackFrom)) }
        if epoch > 0 { object["epoch"] = .integer(epoch) }
        return object
    }

    /// Reads and checks the members of an envelope or history entry: a non-empty `environment`, a positive
    /// integer `version`, a 64-hex-digit `contentHash`, strings where text is sent, a positive `rolledBackFrom`
    /// and a non-negative `epoch`. Unknown members are ignored, so the server may add metadata.
    public init(validating object: [String: JSONValue]) throws(FlagEnvelopeError) {
        guard let environment = object["environment"]?.stringValue, !environment.isEmpty else {
            throw .notAnEnvelope(path: "/environment", problem: "must be a non-empty string")
        }
        guard let number = object["version"]?.integerValue, number >= 1, number <= Int64(Int32.max) else {
            throw .notAnEnvelope(path: "/version", problem: "must be a positive integer")
        }
        guard let contentHash = object["contentHash"]?.stringValue, contentHash.utf8.count == 64,
              contentHash.utf8.allSatisfy(Self.isLowerHex) else {
            throw .notAnEnvelope(path: "/contentHash", problem: "must be 64 lowercase hex digits (SHA-256)")
        }
        func text(_ name: String) throws(FlagEnvelopeError) -> String? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .notAnEnvelope(path: "/\(name)", problem: "must be a string")
            }
        }
        let rolledBackFrom: Int?
        switch object["rolledBackFrom"] {
        case nil, .null?: rolledBackFrom = nil
        case .integer(let from)? where from >= 1 && from <= Int64(Int32.max): rolledBackFrom = Int(from)
        default: throw .notAnEnvelope(path: "/rolledBackFrom", problem: "must be a positive integer")
        }
        let epoch: Int64
        switch object["epoch"] {
        case nil, .null?: epoch = 0
        case .integer(let value)? where value >= 0: epoch = value
        default: throw .notAnEnvelope(path: "/epoch", problem: "must be a non-negative integer")
        }
        self.init(environment: environment, version: Int(number), contentHash: contentHash, publishedAt: try text("publishedAt"),
                  author: try text("author"), message: try text("message"), rolledBackFrom: rolledBackFrom, epoch: epoch)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}
