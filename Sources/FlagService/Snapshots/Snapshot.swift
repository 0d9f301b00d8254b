import FlagKit
import FlagOFREP
import FlagStore
import Foundation
import HTTPServer
import Synchronization

/// One environment's current version, immutable, with everything a `GET` answers encoded ONCE:
/// the envelope bytes, the ETag, and complete 200 and 304 responses that are returned by reference.
///
/// OFREP handlers read `document` (decoded, ready for `evaluate`) and `version` from here.
public final class Snapshot: Sendable {
    /// The environment's name.
    public let environment: String
    /// The version's metadata and canonical document bytes, as stored.
    public let record: VersionRecord
    /// The decoded document.
    public let document: FlagDocument
    /// The strong entity tag of the GET representation, quoted: `"12-3fa9c1e0b2d4a6f8"`.
    public let etag: String
    /// The strong entity tag of the gzip-coded representation: `"12-3fa9c1e0b2d4a6f8-gzip"` (RFC 9110 §8.8.3).
    public let gzipEtag: String
    /// The GET response body (the envelope, see `docs/api.md`), canonical JSON plus a newline.
    public let body: [UInt8]
    /// `body` gzip-compressed, once per version (nil when zlib failed: then every client gets `body`).
    public let gzipBody: [UInt8]?
    /// The prebuilt `200 OK` for GET.
    public let okResponse: HTTPResponse
    /// The prebuilt `304 Not Modified` (same ETag and Cache-Control, no body; RFC 9110 §15.4.5).
    public let notModifiedResponse: HTTPResponse
    /// The prebuilt `200 OK` with `Content-Encoding: gzip`, for clients that accept it (`okResponse` when there is
    /// no gzip body).
    public let gzipOkResponse: HTTPResponse
    /// The prebuilt `304` for clients that accept gzip: the gzip representation's ETag.
    public let gzipNotModifiedResponse: HTTPResponse
    /// Both tags, prepared for `If-None-Match` (read as bytes where the request's fields arrived).
    public let entityTags: HTTPEntityTagSet
    /// What OFREP evaluates against, built once per version with the stored content hash, by the first OFREP
    /// request that needs it: preparing every flag's answers is the largest part of a snapshot and most versions
    /// are never evaluated by OFREP, while the writer builds a snapshot per group commit on the path every flip
    /// waits on.
    public var ofrep: OFREPSnapshot {
        if let built = ofrepStorage.load() { return built }
        // Two requests may both build it; one wins and both use the winner.
        return ofrepStorage.storeIfNil(OFREPSnapshot(document: document, version: record.number,
                                                     environment: record.environment, contentHash: record.contentHash))
    }
    private let ofrepStorage = AtomicLazyReference<OFREPSnapshot>()

    /// The version number.
    public var version: Int { record.number }

    /// `Cache-Control` of document responses: shared caches may keep it 5 s, serve it stale for 30 s
    /// while revalidating, and for a day if this server fails (RFC 9111 §5.2.2, RFC 5861).
    public static let cacheControl = "public, max-age=5, stale-while-revalidate=30, stale-if-error=86400"

    /// `Vary` of document responses (RFC 9110 §12.5.5): a token-carrying request may be answered differently, and
    /// the body's coding follows `Accept-Encoding`. Caches keep one entry per coding.
    public static let vary = "Authorization, Accept-Encoding"

    /// Whether a request's `If-None-Match` fields match either representation of this version, without decoding
    /// them: a cache that stored the gzip variant revalidates with its tag, an app with the identity one.
    public func ifNoneMatch(_ headers: HTTPHeaders) -> Bool { entityTags.matchesIfNoneMatch(headers) }

    /// The same, or nil (undecided) at a field line longer than `limit` bytes (`HTTPEntityTagSet`).
    public func ifNoneMatch(_ headers: HTTPHeaders, fieldLinesUpTo limit: Int) -> Bool? {
        entityTags.matchesIfNoneMatch(headers, fieldLinesUpTo: limit)
    }

    /// Builds the snapshot of `record` whose bytes decode to `document` (the caller decoded or built it).
    ///
    /// `documentIsCanonical`: the caller knows `record.document` IS `document.canonicalBytes` (the writer
    /// published exactly those bytes), so the envelope splices them in instead of encoding the document again.
    public init(record: VersionRecord, document: FlagDocument, documentIsCanonical: Bool = false) {
        environment = record.environment
        self.record = record
        self.document = document
        // The version is part of the tag: a rollback republishes old content as a NEW version, and a
        // client holding the old tag must not pass If-Match against it (no ABA).
        etag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash)
        body = Snapshot.envelopeBytes(record: record,
                                      canonicalDocument: documentIsCanonical ? record.document : document.canonicalBytes)
        gzipEtag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash, coding: .gzip)
        entityTags = HTTPEntityTagSet([etag, gzipEtag])
        // Compressed here, once per version, never per request.
        gzipBody = Gzip.compress(body)
        let lastModified = HTTPDate.imfFixdate(epochSeconds: record.createdAtMilliseconds / 1000)
        let headers: HTTPHeaders = [
            .eTag: etag, .cacheControl: Snapshot.cacheControl, .vary: Snapshot.vary, .lastModified: lastModified,
        ]
        okResponse = HTTPResponse.json(body, headers: headers).encodingHead()
        notModifiedResponse = HTTPResponse.empty(.notModified, headers: headers).encodingHead()
        if let gzipBody {
            let gzipHeaders: HTTPHeaders = [
                .eTag: gzipEtag, .contentEncoding: "gzip", .cacheControl: Snapshot.cacheControl, .vary: Snapshot.vary,
                .lastModified: lastModified,
            ]
            gzipOkResponse = HTTPResponse.json(gzipBody, headers: gzipHeaders).encodingHead()
            // A 304 carries the ETag the 200 would have (§15.4.5), not its Content-Encoding.
            var notModifiedHeaders = gzipHeaders
            notModifiedHeaders.remove(.contentEncoding)
            gzipNotModifiedResponse = HTTPResponse.empty(.notModified, headers: notModifiedHeaders).encodingHead()
        } else {
            gzipOkResponse = okResponse
            gzipNotModifiedResponse = notModifiedResponse
        }
    }

    /// Decodes the stored bytes of `record`. Throws `FlagStoreError.damagedVersion` when the bytes do not hash
    /// to the stored `contentHash` (they would be served under a hash they do not have), and
    /// `FlagDocumentError` when the stored document no longer validates.
    public convenience init(record: VersionRecord) throws {
        try FlagStore.verify(record)
        self.init(record: record, document: try FlagDocument.decode(record.document))
    }

    /// The envelope of a version: metadata plus the document (the same shape for `/document` and `/versions/{n}`).
    public static func envelope(record: VersionRecord, document: JSONValue) -> JSONValue {
        var object = VersionMetadata(record).members
        object["document"] = document
        return .object(object)
    }

    /// The canonical bytes of `envelope(record:document:)` plus a newline, built around already-canonical
    /// document bytes: canonical order puts `author` and `contentHash` before `document` and every other
    /// member after it, so the two halves are encoded and the document is copied between them.
    public static func envelopeBytes(record: VersionRecord, canonicalDocument: [UInt8]) -> [UInt8] {
        var before = VersionMetadata(record).members
        var after = before
        after["author"] = nil
        after["contentHash"] = nil
        before = before.filter { $0.key == "author" || $0.key == "contentHash" }
        let head = JSONValue.object(before).canonicalBytes
        let tail = JSONValue.object(after).canonicalBytes
        var out: [UInt8] = []
        out.reserveCapacity(head.count + tail.count + canonicalDocument.count + 16)
        out.append(contentsOf: head.dropLast())
        out.append(contentsOf: #","document":"#.utf8)
        out.append(contentsOf: canonicalDocument)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: tail.dropFirst())
        out.append(0x0A)
        return out
    }

}

extension VersionMetadata {
    /// The wire metadata of a stored version: its epoch tells which line of version numbers it is (a restore
    /// starts a larger one, FlagStore+Epoch).
    public init(_ record: VersionRecord) {
        self.init(environment: record.environment, version: record.number, contentHash: record.contentHash,
                  publishedAt: RFC3339.string(milliseconds: record.createdAtMilliseconds), author: record.author, message: record.message,
                  rolledBackFrom: record.rolledBackFrom, epoch: record.epoch)
    }
}
