import ClientHTTP
import FlagKit
import Foundation

/// A published version as the server described it: FlagKit's `VersionMetadata` (the wire contract's one reader of
/// the envelope's metadata), the document when the reply carried one, the reply's ETag and its whole JSON.
/// The metadata's members read through (`version.environment`, `version.version`, `version.rolledBackFrom`).
@dynamicMemberLookup
public struct PublishedVersion: Sendable, Equatable {
    /// Environment, number, content hash, time, author, message, rollback origin.
    public var metadata: VersionMetadata
    /// The document, when the reply carried one.
    public var document: FlagDocument?
    /// The `ETag` of the reply (`"12-3fa9c1e0b2d4a6f8"`), the `If-Match` of the next write.
    public var etag: String?
    /// The whole JSON object received (`get --json` prints it).
    public var json: JSONValue

    /// A member of the metadata.
    public subscript<Member>(dynamicMember member: KeyPath<VersionMetadata, Member>) -> Member { metadata[keyPath: member] }

    /// RFC 3339 UTC time of the publish ("" when the reply had none: the server always sends it).
    public var publishedAt: String { metadata.publishedAt ?? "" }
    /// The token name that published it.
    public var author: String { metadata.author ?? "" }
    /// The change's message.
    public var message: String { metadata.message ?? "" }

    /// Reads an envelope (with `document`, whose content hash is checked) or a history entry; `url` and the JSON
    /// path name what is wrong.
    init(_ object: [String: JSONValue], etag: String?, url: URL) throws(ServerError) {
        do {
            if object["document"] != nil {
                let envelope = try FlagEnvelope(validating: object)
                metadata = envelope.metadata
                document = envelope.document
            } else {
                metadata = try VersionMetadata(validating: object)
            }
        } catch {
            throw .unreadableReply(url: url.absoluteString, reason: error.description)
        }
        self.etag = etag ?? object["etag"]?.stringValue
        json = .object(object)
    }
}

/// What a write answered: the version now current and whether this write created it.
public struct WriteResult: Sendable, Equatable {
    /// False when the content was already current (nothing was published).
    public var changed: Bool
    /// The current version after the write.
    public var version: PublishedVersion
}

/// The API calls `flagctl` makes (see `Sources/FlagService` for the routes and their bodies).
extension ServerClient {
    /// `GET /v1/environments/{env}/document`; nil when the environment exists but has no version yet.
    public func current(_ environment: String) throws(ServerError) -> PublishedVersion? {
        let url = try url(["v1", "environments", environment, "document"])
        let response = try exchange(.get, url)
        if response.status == 404, case .refused(let refusal) = refusal(.get, url, response), refusal.code == "no_version" {
            return nil
        }
        guard (200..<300).contains(response.status) else { throw refusal(.get, url, response) }
        return try PublishedVersion(try object(response, from: url), etag: response.headers[.eTag], url: url)
    }

    /// `GET /v1/environments/{env}/versions/{n}`.
    public func version(_ environment: String, _ number: Int) throws(ServerError) -> PublishedVersion {
        let url = try url(["v1", "environments", environment, "versions", String(number)])
        let response = try successful(.get, url)
        return try PublishedVersion(try object(response, from: url), etag: response.headers[.eTag], url: url)
    }

    /// `GET /v1/environments/{env}/versions?limit=N`: the newest `limit` versions, newest first.
    public func history(_ environment: String, limit: Int) throws(ServerError) -> [PublishedVersion] {
        let url = try url(["v1", "environments", environment, "versions"], query: "limit=\(limit)")
        let response = try successful(.get, url)
        let entries = try array(try object(response, from: url), "versions", url)
        var result: [PublishedVersion] = []
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue else {
                throw .unreadableReply(url: url.absoluteString, reason: "/versions/\(index): expected an object")
            }
            result.append(try PublishedVersion(object, etag: nil, url: url))
        }
        return result
    }

    /// `PUT .../document` with `If-Match: etag` (`If-None-Match: *` for a first version): never overwrites
    /// a version this client has not seen (RFC 9110 §13.1.1); a 412 becomes `.conflict`, a 202 (a protected
    /// flag: a change request) `.requested`.
    public func publish(_ environment: String, _ document: FlagDocument, basedOn current: PublishedVersion?,
                        message: String) throws(ServerError) -> WriteAnswer {
        let url = try url(["v1", "environments", environment, "document"])
        var headers = ClientHeaders()
        if let etag = current?.etag { headers.add(name: .ifMatch, value: etag) } else { headers.add(name: .ifNoneMatch, value: "*") }
        headers.add(name: ChangeMessage.header, value: ChangeMessage.encode(message))
        return try write(.put, url, environment, basedOn: current, headers: headers, body: Data(document.canonicalBytes))
    }

    /// `PUT .../document?dryRun=true`: the server validates and diffs; nothing is published.
    /// Returns whether the server says the content would change.
    public func dryRun(_ environment: String, _ document: FlagDocument) throws(ServerError) -> Bool {
        let url = try url(["v1", "environments", environment, "document"], query: "dryRun=true")
        let response = try successful(.put, url, body: Data(document.canonicalBytes))
        guard let changed = try object(response, from: url)["changed"]?.boolValue else {
            throw .unreadableReply(url: url.absoluteString, reason: "/changed: expected a boolean")
        }
        return changed
    }

    /// `PUT .../flags/{key}` with a bare value ("this value for everyone"), `If-Match` of the version shown.
    public func setFlag(_ environment: String, key: String, value: JSONValue, basedOn current: PublishedVersion,
                        message: String) throws(ServerError) -> WriteAnswer {
        let url = try url(["v1", "environments", environment, "flags", key])
        var headers = ClientHeaders()
        if let etag = current.etag { headers.add(name: .ifMatch, value: etag) }
        headers.add(name: ChangeMessage.header, value: ChangeMessage.encode(message))
        return try write(.put, url, environment, basedOn: current, headers: headers, body: Data(value.canonicalBytes))
    }

    /// `POST .../rollback` `{"version": N, "message": M}`, with `If-Match` of the version shown when given.
    public func rollback(_ environment: String, to number: Int, basedOn current: PublishedVersion?,
                         message: String) throws(ServerError) -> WriteAnswer {
        let url = try url(["v1", "environments", environment, "rollback"])
        var headers = ClientHeaders()
        if let etag = current?.etag { headers.add(name: .ifMatch, value: etag) }
        let body: JSONValue = ["version": .integer(Int64(number)), "message": .string(message)]
        return try write(.post, url, environment, basedOn: current, headers: headers, body: Data(body.canonicalBytes))
    }

    private func write(_ method: ClientMethod, _ url: URL, _ environment: String, basedOn current: PublishedVersion?,
                       headers: ClientHeaders, body: Data) throws(ServerError) -> WriteAnswer {
        let response = try exchange(method, url, headers: headers, body: body)
        if let conflict = conflict(method, url, response, environment, basedOn: current) { throw conflict }
        guard (200..<300).contains(response.status) else { throw refusal(method, url, response) }
        let object = try object(response, from: url)
        // 202: the change touches a protected flag and became a change request; nothing was published.
        if response.status == 202 { return .requested(try ChangeProposal(object, url: url)) }
        guard let changed = object["changed"]?.boolValue else {
            throw .unreadableReply(url: url.absoluteString, reason: "/changed: expected a boolean")
        }
        return .written(WriteResult(changed: changed, version: try PublishedVersion(object, etag: response.headers[.eTag], url: url)))
    }

    /// `"12-3fa9c1e0b2d4a6f8"` gives 12.
    static func versionOfETag(_ etag: String) -> Int? {
        let opaque = etag.drop { $0 == "W" || $0 == "/" || $0 == "\"" }
        return Int(opaque.prefix { $0.isNumber })
    }
}
