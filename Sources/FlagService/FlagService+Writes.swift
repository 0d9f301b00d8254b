import FlagKit
import Foundation
import FlagStore
import HTTPServer

/// `PUT .../document`, `PUT .../flags/{key}`, `POST .../rollback`.
///
/// The loop thread only hands the request to the work queue; authentication (a store read, by the route's
/// declared access), parsing and validation happen there, then the job goes to the single writer, which
/// answers after the commit.
extension FlagService {
    func registerWrites(into routes: inout ServiceRoutes) {
        // ?dryRun=true (any token, reader included) validates and diffs without publishing.
        let write = RouteAccess.write(.writer, dryRun: .reader)
        routes.deferred(.PUT, "/v1/environments/{env}/document", access: write) { [self] request, context, token, responder in
            let name = try environment(context)
            try Self.requireJSONContentType(request)
            if try Self.dryRun(request) {
                let document = try Self.decodeDocument(request.body)
                return dryRunResponse(environment: name, document: document)
            }
            let precondition = try Self.requiredPrecondition(request)
            let message = try Self.message(request, body: nil)
            let document = try Self.decodeDocument(request.body)
            submit(WriteJob(environment: name, kind: .document(document), precondition: precondition,
                            author: try RouteGuard.required(token).name, message: message,
                            client: routeGuard.clientAddress(request, context), completion: answer(responder, flag: nil)))
            return nil
        }

        routes.deferred(.PUT, "/v1/environments/{env}/flags/{key}", access: write) { [self] request, context, token, responder in
            let name = try environment(context)
            let key = context.pathParameters["key"] ?? ""
            try Self.requireJSONContentType(request)
            let edit = FlagEdit(try Self.parseJSON(request.body))
            if try Self.dryRun(request) {
                let document = try edit.apply(to: snapshots.snapshot(name)?.document, key: key)
                return dryRunResponse(environment: name, document: document)
            }
            let precondition = Self.optionalPrecondition(request)
            let message = try Self.message(request, body: nil)
            submit(WriteJob(environment: name, kind: .flag(key: key, edit: edit), precondition: precondition,
                            author: try RouteGuard.required(token).name, message: message,
                            client: routeGuard.clientAddress(request, context), completion: answer(responder, flag: key)))
            return nil
        }

        routes.deferred(.POST, "/v1/environments/{env}/rollback", access: .token(.writer)) { [self] request, context, token, responder in
            let name = try environment(context)
            try Self.requireJSONContentType(request)
            guard case .object(let body) = try Self.parseJSON(request.body) else {
                throw ServiceError.badRequest("invalid_body", #"expected {"version": N, "message": "..."}"#)
            }
            guard let number = body["version"]?.integerValue, number >= 1, number <= Int64(Int32.max) else {
                throw ServiceError(.unprocessableContent, code: "invalid_body", message: "version must be a positive integer",
                                   details: [ValidationIssue(path: "/version", message: "must be a positive integer")])
            }
            let message = try Self.message(request, body: body["message"])
            let precondition = Self.optionalPrecondition(request)
            submit(WriteJob(environment: name, kind: .rollback(number: Int(number)), precondition: precondition,
                            author: try RouteGuard.required(token).name, message: message,
                            client: routeGuard.clientAddress(request, context), completion: answer(responder, flag: nil)))
            return nil
        }
    }

    /// Queues a write for the writer thread.
    func submit(_ job: WriteJob) { writer.submit(job) }

    /// The completion that renders a write's outcome: 200 with `changed` true or false, the refusal, or
    /// (a write that touched a protected flag) 202 with the change request it became.
    func answer(_ responder: HTTPResponder, flag key: String?) -> @Sendable (WriteOutcome) -> Void {
        { [self] outcome in
            switch outcome {
            case .published(let published):
                var body = Self.versionMembers(published)
                if let key, let flag = published.document.flags[key] { body["flag"] = flag.jsonValue }
                responder.respond(Self.json(body, headers: [.eTag: published.etag]))
            case .unchanged(let record):
                var body = VersionMetadata(record).members
                let etag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash)
                body["changed"] = false
                body["etag"] = .string(etag)
                responder.respond(Self.json(body, headers: [.eTag: etag]))
            case .failed(let error):
                responder.respond(error.response)
            case .recorded(let recorded):
                answerRecorded(recorded, responder)
            case .changeRan(let record, _), .changeSkipped(let record):
                // Only change jobs end so, and they are not submitted with this completion.
                responder.respond(Self.json(["change": record.jsonValue]))
            }
        }
    }

    /// A published version as a write answers it: its metadata, `changed: true` and its `etag`.
    static func versionMembers(_ published: CommittedVersion) -> [String: JSONValue] {
        var body = VersionMetadata(published.record).members
        body["changed"] = true
        body["etag"] = .string(published.etag)
        return body
    }

    /// What a publish of `document` would change against the current version; publishes nothing.
    func dryRunResponse(environment name: String, document: FlagDocument) -> HTTPResponse {
        let current = snapshots.snapshot(name)
        let diff = DocumentDiff(from: current?.document ?? Self.emptyDocument ?? document, to: document)
        // Encoded and hashed once (FlagDocument.contentHash encodes and hashes on every use).
        let contentHash = FlagStore.contentHash(document.canonicalBytes)
        var body: [String: JSONValue] = [
            "dryRun": true, "valid": true, "environment": .string(name),
            "changed": .bool(contentHash != current?.record.contentHash),
            "contentHash": .string(contentHash), "diff": diff.jsonValue,
        ]
        body["baseVersion"] = current.map { .integer(Int64($0.version)) } ?? .null
        // What a real write would do: a change touching a protected flag waits for a second person.
        let base = current?.document ?? Self.emptyDocument ?? document
        let decision = ProtectionDecision(policy: policies.policy(name), changeSet: ChangeSet(base: base, proposed: document),
                                          base: base, proposed: document)
        body["needsApproval"] = .bool(decision.needsApproval)
        body["protectedFlags"] = .array(decision.protectedFlags.map(JSONValue.string))
        return Self.json(body)
    }

    /// `{"flags": {}}`, the base a first version is compared with.
    static let emptyDocument: FlagDocument? = try? FlagDocument(validating: .object(["flags": .object([:])]))

    static func dryRun(_ request: HTTPRequest) throws(ServiceError) -> Bool {
        switch request.queryParameter("dryRun") {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        case let other?: throw .badRequest("invalid_parameter", "dryRun must be true or false, got '\(other)'")
        }
    }

    /// 415 unless `Content-Type` is `application/json` or `application/*+json` (a missing one is taken as JSON).
    static func requireJSONContentType(_ request: HTTPRequest) throws(ServiceError) {
        guard let value = request.headers[.contentType] else { return }
        let mediaType = HTTPHeaders.trimmed(value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]).lowercased()
        if mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) { return }
        throw ServiceError(.unsupportedMediaType, code: "unsupported_media_type",
                           message: "send Content-Type: application/json (got \(value))", headers: [.acceptPut: "application/json"])
    }

    /// Parses a JSON body: 400 for an empty body or malformed JSON (with line and column).
    static func parseJSON(_ body: [UInt8]) throws(ServiceError) -> JSONValue {
        guard !body.isEmpty else { throw .badRequest("empty_body", "the request needs a JSON body") }
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            throw .malformedJSON(error)
        }
        if !parsed.duplicateKeyPaths.isEmpty {
            throw .invalidDocument(parsed.duplicateKeyPaths.map { ValidationIssue(path: $0, message: "duplicate key") })
        }
        return parsed.value
    }

    /// Decodes a whole document: 400 malformed, 422 with every issue.
    static func decodeDocument(_ body: [UInt8]) throws(ServiceError) -> FlagDocument {
        guard !body.isEmpty else { throw .badRequest("empty_body", "the request needs a JSON body") }
        do {
            return try FlagDocument.decode(body)
        } catch {
            throw .document(error)
        }
    }

    /// `If-Match` (or `If-None-Match: *` for a first version) is REQUIRED: 428 without (RFC 6585 §3).
    static func requiredPrecondition(_ request: HTTPRequest) throws(ServiceError) -> WriteJob.Precondition {
        let precondition = optionalPrecondition(request)
        guard precondition != .none else {
            throw ServiceError(.preconditionRequired, code: "precondition_required",
                               message: "send If-Match with the current ETag (GET the document first)")
        }
        return precondition
    }

    /// `If-Match`, `If-None-Match: *`, or none.
    static func optionalPrecondition(_ request: HTTPRequest) -> WriteJob.Precondition {
        let ifMatch = request.headers.values(for: .ifMatch)
        if !ifMatch.isEmpty { return .ifMatch(ifMatch) }
        return HTTPEntityTagList.isAny(request.headers.values(for: .ifNoneMatch)) ? .ifNoneMatchAny : .none
    }

    /// The write's message: the body's `message` (rollback) or `X-Change-Message` (percent-encoded UTF-8 is
    /// decoded); 400 when missing or blank.
    static func message(_ request: HTTPRequest, body: JSONValue?) throws(ServiceError) -> String {
        var text: String?
        if let body {
            guard let string = body.stringValue else { throw .badRequest("invalid_message", "message must be a string") }
            text = string
        } else if let header = request.headers[.changeMessage] {
            text = HTTPRequest.percentDecode(header) ?? header
        }
        // Blank in the Unicode sense (no-break spaces too), without Foundation's NSString bridge.
        guard let text, !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
            throw .badRequest("message_required", "every change needs a message: send the \(APIHeader.changeMessage) header")
        }
        guard text.utf8.count <= 10_000 else { throw .badRequest("message_too_long", "the message is longer than 10000 bytes") }
        return text
    }
}
