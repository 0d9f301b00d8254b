import FlagKit
import FlagStore
import HTTPServer

/// `PUT .../document`, `PUT .../flags/{key}`, `POST .../rollback`.
///
/// The loop thread only hands the request to the work queue; authentication (a store read, by the route's
/// declared access), parsing and validation happen there, then the job goes to the single writer, which
/// answers after the commit.
extension DocumentsController {
    func addWrites(to routes: inout ServiceRoutes) {
        // ?dryRun=true (any token, reader included) validates and diffs without publishing.
        let write = RouteAccess.write(.writer, dryRun: .reader)
        routes.deferred(.PUT, "/v1/environments/{env}/document", access: write,
                        audit: .action("publish")) { [self] request, context, token, responder in
            let name = try snapshots.requestedEnvironment(context)
            try Self.requireJSONContentType(request)
            if try RouteAccess.dryRun(request) {
                let document = try Self.decodeDocument(request.body)
                return dryRunResponse(environment: name, document: document)
            }
            let precondition = try Self.requiredPrecondition(request)
            let message = try Self.message(request, body: nil)
            let document = try Self.decodeDocument(request.body)
            writer.submit(WriteJob(environment: name, kind: .document(document), precondition: precondition,
                                   author: try RouteGuard.required(token).name, message: message,
                                   client: routeGuard.clientAddress(request, context),
                                   completion: answers.completion(responder, flag: nil)))
            return nil
        }

        routes.deferred(.PUT, "/v1/environments/{env}/flags/{key}", access: write,
                        audit: .action("publish")) { [self] request, context, token, responder in
            let name = try snapshots.requestedEnvironment(context)
            let key = context.pathParameters["key"] ?? ""
            try Self.requireJSONContentType(request)
            let edit = FlagEdit(try Self.parseJSON(request.body))
            if try RouteAccess.dryRun(request) {
                let document = try edit.apply(to: snapshots.snapshot(name)?.document, key: key)
                return dryRunResponse(environment: name, document: document)
            }
            let precondition = Self.optionalPrecondition(request)
            let message = try Self.message(request, body: nil)
            writer.submit(WriteJob(environment: name, kind: .flag(key: key, edit: edit), precondition: precondition,
                                   author: try RouteGuard.required(token).name, message: message,
                                   client: routeGuard.clientAddress(request, context),
                                   completion: answers.completion(responder, flag: key)))
            return nil
        }

        routes.deferred(.POST, "/v1/environments/{env}/rollback", access: .token(.writer),
                        audit: .action("publish")) { [self] request, context, token, responder in
            let name = try snapshots.requestedEnvironment(context)
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
            writer.submit(WriteJob(environment: name, kind: .rollback(number: Int(number)), precondition: precondition,
                                   author: try RouteGuard.required(token).name, message: message,
                                   client: routeGuard.clientAddress(request, context),
                                   completion: answers.completion(responder, flag: nil)))
            return nil
        }
    }

    /// What a publish of `document` would change against the current version; publishes nothing.
    func dryRunResponse(environment name: String, document: FlagDocument) -> HTTPResponse {
        let current = snapshots.snapshot(name)
        let diff = DocumentDiff(from: current?.document ?? FlagService.emptyDocument ?? document, to: document)
        // Encoded and hashed once (FlagDocument.contentHash encodes and hashes on every use).
        let contentHash = FlagStore.contentHash(document.canonicalBytes)
        var body: [String: JSONValue] = [
            "dryRun": true, "valid": true, "environment": .string(name),
            "changed": .bool(contentHash != current?.record.contentHash),
            "contentHash": .string(contentHash), "diff": diff.jsonValue,
        ]
        body["baseVersion"] = current.map { .integer(Int64($0.version)) } ?? .null
        // What a real write would do: a change touching a protected flag waits for a second person.
        let base = current?.document ?? FlagService.emptyDocument ?? document
        let decision = ProtectionDecision(policy: policies.policy(name), changeSet: ChangeSet(base: base, proposed: document),
                                          base: base, proposed: document)
        body["needsApproval"] = .bool(decision.needsApproval)
        body["protectedFlags"] = .array(decision.protectedFlags.map(JSONValue.string))
        return Self.json(body)
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
}
