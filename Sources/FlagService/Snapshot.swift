import FlagKit
import FlagStore
import Foundation
import HTTPServer

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
    /// The GET response body (the envelope, see `docs/api.md`), canonical JSON plus a newline.
    public let body: [UInt8]
    /// The prebuilt `200 OK` for GET.
    public let okResponse: HTTPResponse
    /// The prebuilt `304 Not Modified` (same ETag and Cache-Control, no body; RFC 9110 §15.4.5).
    public let notModifiedResponse: HTTPResponse

    /// The version number.
    public var version: Int { record.number }

    /// `Cache-Control` of document responses: shared caches may keep it 5 s, serve it stale for 30 s
    /// while revalidating, and for a day if this server fails (RFC 9111 §5.2.2, RFC 5861).
    public static let cacheControl = "public, max-age=5, stale-while-revalidate=30, stale-if-error=86400"

    /// Builds the snapshot of `record` whose bytes decode to `document` (the caller decoded or built it).
    public init(record: VersionRecord, document: FlagDocument) {
        environment = record.environment
        self.record = record
        self.document = document
        // The version is part of the tag: a rollback republishes old content as a NEW version, and a
        // client holding the old tag must not pass If-Match against it (no ABA).
        etag = Snapshot.makeETag(version: record.number, contentHash: record.contentHash)
        body = Snapshot.envelope(record: record, document: document.jsonValue).canonicalBytes + [0x0A]
        let headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": Snapshot.cacheControl, "Vary": "Authorization",
            "Last-Modified": Snapshot.httpDate(record.createdAtMilliseconds),
        ]
        okResponse = HTTPResponse.json(body, headers: headers)
        notModifiedResponse = HTTPResponse.empty(.notModified, headers: headers)
    }

    /// The ETag of version `version` with content `contentHash`: `"<version>-<first 16 hex digits>"`.
    public static func makeETag(version: Int, contentHash: String) -> String {
        "\"\(version)-\(contentHash.prefix(16))\""
    }

    /// Decodes the stored bytes of `record`; fails when the stored document no longer validates.
    public convenience init(record: VersionRecord) throws(FlagDocumentError) {
        self.init(record: record, document: try FlagDocument.decode(record.document))
    }

    /// The envelope of a version: metadata plus the document (the same shape for `/document` and `/versions/{n}`).
    public static func envelope(record: VersionRecord, document: JSONValue) -> JSONValue {
        var object = metadata(record)
        object["document"] = document
        return .object(object)
    }

    /// A version's metadata without the document (history pages).
    public static func metadata(_ record: VersionRecord) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "environment": .string(record.environment),
            "version": .integer(Int64(record.number)),
            "contentHash": .string(record.contentHash),
            "publishedAt": .string(timestamp(record.createdAtMilliseconds)),
            "author": .string(record.author),
            "message": .string(record.message),
        ]
        if let from = record.rolledBackFrom { object["rolledBackFrom"] = .integer(Int64(from)) }
        return object
    }

    /// RFC 3339 UTC with milliseconds: `2026-11-29T15:30:00.123Z`.
    public static func timestamp(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds % 1000))
    }

    /// IMF-fixdate (RFC 9110 §5.6.7) for `Last-Modified`.
    static func httpDate(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(format: "%@, %02d %@ %04d %02d:%02d:%02d GMT", days[Int(parts.tm_wday) % 7], Int(parts.tm_mday),
                      months[Int(parts.tm_mon) % 12], Int(parts.tm_year) + 1900, Int(parts.tm_hour), Int(parts.tm_min),
                      Int(parts.tm_sec))
    }
}
