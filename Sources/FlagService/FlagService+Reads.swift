import FlagKit
import FlagStore
import HTTPServer

/// `GET` of documents and history.
extension FlagService {
    /// The longest `If-None-Match` field line the document GET matches under the snapshot store's lock (both tags of a
    /// version fit: about 55 bytes).
    static let tagsMatchedUnderLock = 128

    func registerReads(into routes: inout ServiceRoutes) {
        // A scoped token sees its environments only (with --require-read-token; while reads are public every
        // document is anyone's, so no token is looked at and the list is complete).
        routes.sync(.GET, "/v1/environments", access: .reader) { [self] _, _, token in
            let current = snapshots.all()
            let visible = snapshots.environments.filter { name in token.map { RouteGuard.scopeAllows($0, environment: name) } ?? true }
            let list: [JSONValue] = visible.map { name in
                var entry: [String: JSONValue] = ["name": .string(name)]
                if let snapshot = current[name] {
                    entry["version"] = .integer(Int64(snapshot.version))
                    entry["etag"] = .string(snapshot.etag)
                }
                return .object(entry)
            }
            return Self.json(["environments": .array(list)])
        }

        // The hot path: a lock, a lookup, and a prebuilt response returned by reference. Never SQLite, never zlib:
        // the gzip variant was compressed when the snapshot was built.
        routes.sync(.GET, "/v1/environments/{env}/document", access: .reader) { [self] request, context, _ in
            let name = context.pathParameters["env"] ?? ""
            // Both fields are read as the bytes they arrived as: no string is made for either. Either tag of this
            // version matches, whichever coding is asked for now (the 304 names the asked one).
            let headers = request.headers
            let gzip = HTTPAcceptEncoding.acceptsGzip(headers)
            func answer(_ snapshot: Snapshot, notModified: Bool) -> HTTPResponse {
                if notModified { return gzip ? snapshot.gzipNotModifiedResponse : snapshot.notModifiedResponse }
                return gzip ? snapshot.gzipOkResponse : snapshot.okResponse
            }
            // A client's tag or two is matched under the lock every GET takes; a long list (up to the 16 KiB header
            // limit: microseconds of parsing) is matched outside it, on a retained snapshot, so that one client's
            // long lists cannot hold the other loops' GETs and the writer's install.
            let underLock = snapshots.withSnapshot(name) { snapshot -> HTTPResponse? in
                snapshot.ifNoneMatch(headers, fieldLinesUpTo: Self.tagsMatchedUnderLock).map { answer(snapshot, notModified: $0) }
            }
            let response: HTTPResponse?
            switch underLock {
            case .some(.some(let decided)): response = decided
            case .some(.none): response = snapshots.snapshot(name).map { answer($0, notModified: $0.ifNoneMatch(headers)) }
            case .none: response = nil
            }
            guard let response else {
                _ = try environment(context)
                throw ServiceError(.notFound, code: "no_version", message: "\(name) has no published version yet")
            }
            return response
        }

        routes.deferred(.GET, "/v1/environments/{env}/versions", access: .reader) { [self] request, context, _, _ in
            let name = try environment(context)
            let limit = try Self.integerParameter(request, "limit", default: 50, range: 1...1000)
            let before = try Self.optionalIntegerParameter(request, "before", range: 1...Int.max)
            let page: [VersionRecord]
            do {
                page = try store.versions(environment: name, limit: limit, before: before)
            } catch {
                throw ServiceError.store(error)
            }
            var next: JSONValue = .null
            if page.count == limit, let last = page.last, last.number > 1 {
                next = .string("/v1/environments/\(name)/versions?limit=\(limit)&before=\(last.number)")
            }
            var headers = HTTPHeaders()
            if case .string(let link) = next { headers.add(name: .link, value: "<\(link)>; rel=\"next\"") }
            return Self.json(["environment": .string(name), "versions": .array(page.map { .object(VersionMetadata($0).members) }),
                              "next": next], headers: headers)
        }

        routes.deferred(.GET, "/v1/environments/{env}/versions/{number}", access: .reader) { [self] _, context, _, _ in
            let name = try environment(context)
            guard let text = context.pathParameters["number"], let number = Int(text), number >= 1 else {
                throw ServiceError.badRequest("invalid_version", "the version must be a positive integer")
            }
            let record: VersionRecord
            do {
                record = try store.version(environment: name, number: number)
                try FlagStore.verify(record)
            } catch {
                throw ServiceError.store(error)
            }
            let document: JSONValue
            do {
                document = try JSONParser.parse(record.document).value
            } catch {
                throw ServiceError(.internalServerError, code: "stored_document_unreadable",
                                   message: "version \(number) is stored but is not JSON: \(error)")
            }
            let etag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash)
            // Old versions never change: caches may keep them for a long time.
            return HTTPResponse.json(Snapshot.envelope(record: record, document: document).canonicalBytes + [0x0A],
                                     headers: [.eTag: etag, .cacheControl: "public, max-age=86400, immutable"])
        }
    }

    /// A JSON response of `object`, canonical, with a trailing newline.
    static func json(_ object: [String: JSONValue], status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse.json(JSONValue.object(object).canonicalBytes + [0x0A], status: status, headers: headers)
    }

    /// Query parameter `name` as an integer in `range`, `fallback` when absent; 400 otherwise.
    static func integerParameter(_ request: HTTPRequest, _ name: String, default fallback: Int,
                                 range: ClosedRange<Int>) throws(ServiceError) -> Int {
        try optionalIntegerParameter(request, name, range: range) ?? fallback
    }

    /// Query parameter `name` as an integer in `range`, nil when absent; 400 otherwise.
    static func optionalIntegerParameter(_ request: HTTPRequest, _ name: String,
                                         range: ClosedRange<Int>) throws(ServiceError) -> Int? {
        guard let text = request.queryParameter(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ServiceError.badRequest("invalid_parameter",
                                          "\(name) must be an integer between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }
}
