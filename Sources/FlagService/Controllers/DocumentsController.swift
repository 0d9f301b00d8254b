import FlagKit
import FlagStore
import HTTPServer

/// The documents: `GET` of the environments, a document and its history, the writes that publish
/// (`PUT .../document`, `PUT .../flags/{key}`, `POST .../rollback`: `DocumentsController+Writes`), and the
/// change notification stream (`GET .../events`).
struct DocumentsController: RouteController {
    /// The longest `If-None-Match` field line the document GET matches under the snapshot store's lock (both tags of a
    /// version fit: about 55 bytes).
    static let tagsMatchedUnderLock = 128

    /// The history the version routes read.
    let store: FlagStore
    /// What the document GET serves and a flag edit or dry run starts from.
    let snapshots: SnapshotStore
    /// Where writes go, one at a time.
    let writer: WriteQueue
    /// Every environment's policy, for what a dry run says would need approval.
    let policies: PolicyTable
    /// The event streams' subscribers.
    let events: EventHub
    /// The client's address for a write's audit.
    let routeGuard: RouteGuard
    /// How a write's outcome is answered.
    let answers: WriteAnswer
    /// Whether the snapshots are confirmed by the shared database (a GET says how old they are when not).
    let reachability: DatabaseReachability

    /// The events path of `environment`, announced by OFREP as its event stream.
    static func eventsPath(_ environment: String) -> String { "/v1/environments/\(environment)/events" }

    func addRoutes(to routes: inout ServiceRoutes) {
        addReads(to: &routes)
        addWrites(to: &routes)
        // The same reader rules as the document GET; a stream keeps the connection's own responder.
        routes.stream(.GET, "/v1/environments/{env}/events", access: .reader) { [self] request, context, _, responder in
            try openEvents(request, context, responder)
        }
    }

    private func addReads(to routes: inout ServiceRoutes) {
        // A scoped token sees its environments only (with --require-read-token; while reads are public every
        // document is anyone's, so no token is looked at and the list is complete).
        routes.sync(.GET, "/v1/environments", access: .reader) { [snapshots] _, _, token in
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

        addDocumentRoute(to: &routes)

        routes.deferred(.GET, "/v1/environments/{env}/versions", access: .reader) { [self] request, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
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
            let name = try snapshots.requestedEnvironment(context)
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

    /// The document GET, the hot path.
    private func addDocumentRoute(to routes: inout ServiceRoutes) {
        // The hot path: a lock, a lookup, and a prebuilt response returned by reference. Never SQLite, never zlib:
        // the gzip variant was compressed when the snapshot was built. The closure holds the snapshot store itself.
        // Only a node of several can be cut off from the database: one process on SQLite registers the GET without the
        // check (on every request it cost a retain, a release and a call, measured by Benchmarks/instructions.sh).
        guard store.topology == .shared else {
            routes.sync(.GET, Self.documentPath, access: .reader) { [snapshots] request, context, _ in
                try Self.document(snapshots, request, context)
            }
            return
        }
        routes.sync(.GET, Self.documentPath, access: .reader) { [snapshots, reachability] request, context, _ in
            let response = try Self.document(snapshots, request, context)
            // Cut off from the shared database, the node still serves what it has and says how old that may be; the
            // copy with the field is made only then (the body is shared, the head encoded again).
            if let seconds = reachability.unreachableSeconds() {
                var stale = response
                stale.headers.add(name: .databaseUnreachableSeconds, value: String(seconds))
                return stale
            }
            return response
        }
    }

    /// The document route's path.
    static let documentPath = "/v1/environments/{env}/document"

    /// The document GET's answer from the snapshot of the requested environment: 200 or 304, identity or gzip.
    @inline(__always)
    static func document(_ snapshots: SnapshotStore, _ request: HTTPRequest, _ context: HTTPRequestContext) throws -> HTTPResponse {
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
            _ = try snapshots.requestedEnvironment(context)
            throw ServiceError(.notFound, code: "no_version", message: "\(name) has no published version yet")
        }
        return response
    }


    /// A stream subscribed to the environment. A `Last-Event-ID` (WHATWG HTML §9.2.4: the id of the last
    /// event the client saw) naming another version than the current one gets the current version's event
    /// at once, so a reconnecting client misses nothing.
    func openEvents(_ request: HTTPRequest, _ context: HTTPRequestContext, _ responder: HTTPResponder) throws(ServiceError) {
        let name = try snapshots.requestedEnvironment(context)
        let head = HTTPResponse(status: .ok, headers: [
            .contentType: "text/event-stream", .cacheControl: "no-cache",
            // nginx passes the stream on unbuffered whatever its proxy_buffering says.
            .xAccelBuffering: "no", .vary: HTTPHeaderName.authorization.rawValue,
        ])
        guard let stream = responder.openStream(head, heartbeat: EventHub.heartbeat) else { return }
        stream.send(events.preamble)
        events.subscribe(stream, environment: name)
        if let field = request.headers[.lastEventID], let seen = Int(HTTPHeaders.trimmed(Substring(field))),
           let snapshot = snapshots.snapshot(name), seen != snapshot.version {
            stream.send(EventHub.event(snapshot))
        }
    }
}
