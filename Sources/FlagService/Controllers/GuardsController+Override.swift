import Dispatch
import FlagKit
import FlagStore
import HTTPServer

/// `POST /v1/guards/{id}/override` (docs/guards.md, "The service"): a second person overrides a tripped guard. Not the
/// guard's creator nor the watched version's author (403 `self_override`); only a tripped guard (409 `not_tripped`);
/// a message is required. A done rollback is undone by publishing the watched version's content again, an ordinary
/// audited publish by the overrider, only while the head is still the rollback's version (else 409 `head_moved`, and
/// nothing changes); paused schedules are released.
extension GuardsController {
    func addOverride(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/guards/{id}/override", access: .token(.writer),
                        audit: .action("guard.override")) { [self] request, context, token, responder in
            let token = try RouteGuard.required(token)
            let record = try scopedGuard(context, token)
            let message = try Self.overrideMessage(request)
            let client = routeGuard.clientAddress(request, context)
            let versionAuthor = try record.version.map { number in
                try ServiceError.storing { try store.version(environment: record.environment, number: number).author }
            }
            guard token.name != record.createdBy, token.name != versionAuthor else {
                throw Self.refusal(.forbidden, "self_override", record,
                                   "\(token.name) made guard \(record.id) or its version; a second person must override it")
            }
            guard record.status == .tripped else {
                throw Self.refusal(.conflict, "not_tripped", record, "guard \(record.id) is \(record.status.rawValue), not tripped")
            }
            let action = record.action?.objectValue
            guard action?["kind"] == "rollback", action?["outcome"] == "done", let rolledBack = action?["version"]?.integerValue,
                  let watched = record.version else {
                return try overridden(record, by: token.name, message: message, client: client, detail: "nothing to republish")
            }
            let head = writer.current(record.environment)
            guard head.version == Int(rolledBack), let etag = head.etag else {
                throw Self.refusal(.conflict, "head_moved", record, "the head of \(record.environment) is version \(head.version), "
                    + "not the rollback's version \(rolledBack): version \(watched) is not republished over a later change")
            }
            writer.submit(WriteJob(environment: record.environment, kind: .rollback(number: watched), precondition: .ifMatch([etag]),
                                   author: token.name, message: "override of guard \(record.id): \(message)", client: client) { outcome in
                // Off the writer thread: the guard's own row is written next.
                DispatchQueue.global().async { [self] in
                    responder.respond(answer(outcome, record, by: token.name, message: message, client: client, watched: watched))
                }
            })
            return nil
        }
    }

    /// The answer once the republish ran: the guard overridden (with the new version's members), or the refusal.
    private func answer(_ outcome: WriteOutcome, _ record: GuardRecord, by actor: String, message: String, client: String,
                        watched: Int) -> HTTPResponse {
        do {
            switch outcome {
            case .published(let committed):
                var response = try overriddenBody(record, by: actor, message: message, client: client,
                                                  detail: "version \(watched) republished as version \(committed.version)")
                for (key, value) in WriteAnswer.versionMembers(committed) { response[key] = value }
                return Self.json(response, headers: [.eTag: committed.etag])
            case .unchanged(let current):
                return Self.json(try overriddenBody(record, by: actor, message: message, client: client,
                                                    detail: "version \(watched)'s content is current (version \(current.number))"))
            case .recorded(let change):
                var response = try overriddenBody(record, by: actor, message: message, client: client,
                                                  detail: "the republish became change request \(change.record.id)")
                response["change"] = change.record.jsonValue
                return Self.json(response, status: .accepted)
            case .failed(let error) where error.code == "precondition_failed":
                return Self.refusal(.conflict, "head_moved", record, "the head of \(record.environment) moved: \(error.message)").response
            case .failed(let error):
                return error.response
            case .changeRan, .changeSkipped, .notificationStored:
                return ServiceError(.internalServerError, code: "internal", message: "internal error").response
            }
        } catch {
            return error.response
        }
    }

    /// Marks the guard overridden (releasing what it held) and answers it.
    private func overridden(_ record: GuardRecord, by actor: String, message: String, client: String,
                            detail: String) throws(ServiceError) -> HTTPResponse {
        Self.json(try overriddenBody(record, by: actor, message: message, client: client, detail: detail))
    }

    private func overriddenBody(_ record: GuardRecord, by actor: String, message: String, client: String,
                                detail: String) throws(ServiceError) -> [String: JSONValue] {
        let transition = try ServiceError.storing {
            try store.overrideGuard(id: record.id, actor: actor, message: message, at: clock(), client: client, detail: detail)
        }
        guard transition.happened else {
            throw Self.refusal(.conflict, "not_tripped", transition.record,
                               "guard \(record.id) is \(transition.record.status.rawValue), not tripped")
        }
        scheduler.wake()
        logger.log(.info, "guard_overridden", ["guard": "\(record.id)", "by": actor, "detail": detail])
        webhooks.submit("guard.overridden", guard: transition.record)
        return ["guard": transition.record.jsonValue]
    }

    /// The body's `message` (or `X-Change-Message`); 400 `message_required` when there is none.
    static func overrideMessage(_ request: HTTPRequest) throws(ServiceError) -> String {
        var member: JSONValue?
        if !request.body.isEmpty {
            try requireJSONContentType(request)
            guard case .object(let members) = try parseJSON(request.body) else {
                throw ServiceError.badRequest("invalid_body", #"expected {"message": "..."}"#)
            }
            member = members["message"]
        }
        return try message(request, body: member)
    }
}
