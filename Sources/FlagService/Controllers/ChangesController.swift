import FlagKit
import FlagStore
import HTTPServer

/// The governance routes (`docs/governance.md`): a change by its id (`GET`/`DELETE /v1/changes/{id}`,
/// `POST .../approve` and `.../reject`, here), schedules and requests (`ChangesController+Schedules`), policies
/// (`+Policy`), stale flags (`+Stale`) and the preview of a proposed change (`+Preview`). A change is addressed
/// by its id, so its environment's scope is checked here, with THE scope check (`RouteGuard.scopeAllows`), once
/// the change is read.
struct ChangesController: RouteController {
    /// Changes, policies and the history the stale scan reads.
    let store: FlagStore
    /// The environments, and the current documents a preview or stale scan starts from.
    let snapshots: SnapshotStore
    /// Where schedules and approved changes go, and what approvals are checked against.
    let writer: WriteQueue
    /// Woken when a change is decided; claims an approved change so it is published once.
    let scheduler: ChangeScheduler
    /// Every environment's policy (replaced by `PUT .../policy`).
    let policies: PolicyTable
    /// Told of every decision (`request.*`, `change.*`, `policy.updated`).
    let webhooks: WebhookDispatcher
    /// The client's address for the audit.
    let routeGuard: RouteGuard
    /// Structured logs.
    let logger: ServiceLogger
    /// How a schedule's outcome is answered.
    let answers: WriteAnswer
    /// The impact sample of the last preview, reused while the pools stay the same.
    let impactSamples: ImpactSampleCache

    func addRoutes(to routes: inout ServiceRoutes) {
        addSchedules(to: &routes)
        addPolicy(to: &routes)
        addStale(to: &routes)
        addPreview(to: &routes)

        routes.deferred(.GET, "/v1/changes/{id}", access: .reader) { [self] _, context, token, _ in
            let change = try scopedChange(context, token)
            return Self.json(["change": change.jsonValue], headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.DELETE, "/v1/changes/{id}", access: .token(.writer),
                        audit: .action("change.cancel")) { [self] request, context, token, _ in
            let token = try RouteGuard.required(token)
            let change = try scopedChange(context, token)
            let reason = try Self.decisionMessage(request, required: false)
            let transition = try ServiceError.storing {
                try store.cancelChange(id: change.id, actor: token.name, message: reason,
                                       client: routeGuard.clientAddress(request, context))
            }
            guard transition.happened else {
                throw Self.refusal(.conflict, "not_cancellable", transition.record,
                                   "change \(change.id) is \(transition.record.status.rawValue); only pending or scheduled changes can be cancelled")
            }
            scheduler.wake()
            webhooks.submit("change.cancelled", change: transition.record)
            return Self.json(["change": transition.record.jsonValue])
        }

        routes.deferred(.POST, "/v1/changes/{id}/approve", access: .token(.writer),
                        audit: .action("change.approve")) { [self] request, context, token, responder in
            let token = try RouteGuard.required(token)
            let change = try scopedChange(context, token)
            let message = try Self.decisionMessage(request, required: false)
            let client = routeGuard.clientAddress(request, context)
            let approved = try approve(change, by: token, message: message, client: client)
            webhooks.submit("request.approved", change: approved)
            guard approved.status == .approved else {
                // Approved ahead of its time: the scheduler publishes it then.
                webhooks.submit("change.scheduled", change: approved)
                scheduler.wake()
                return Self.json(["change": approved.jsonValue])
            }
            // Committed as `approved` first, so a crash from here on loses nothing (the next start publishes it);
            // the answer comes after the publish, like a write's. Claimed so the scheduler does not queue it too.
            let claimed = scheduler.claim(approved.id)
            writer.submit(WriteJob.applyChange(approved, actor: token.name, webhooks: webhooks) { [scheduler] outcome in
                if claimed { scheduler.finished(approved.id, succeeded: !Self.isFailure(outcome)) }
                responder.respond(Self.approvalAnswer(outcome))
            })
            return nil
        }

        routes.deferred(.POST, "/v1/changes/{id}/reject", access: .token(.writer),
                        audit: .action("change.reject")) { [self] request, context, token, _ in
            let token = try RouteGuard.required(token)
            let change = try scopedChange(context, token)
            let message = try Self.decisionMessage(request, required: true) ?? ""
            let transition = try ServiceError.storing {
                try store.rejectChange(id: change.id, actor: token.name, message: message,
                                       client: routeGuard.clientAddress(request, context))
            }
            guard transition.happened else { throw Self.notPending(transition.record) }
            scheduler.wake()
            webhooks.submit("request.rejected", change: transition.record)
            return Self.json(["change": transition.record.jsonValue])
        }
    }

    /// The checks of `docs/governance.md` in order, then the store's compare-and-set: 403 `self_approval` for
    /// the token that proposed it, 409 `not_pending`, `request_expired` (marked expired), `request_stale` (marked
    /// stale, with the conflicts). Returns the change as approved (`approved`, or `scheduled` ahead of its time).
    func approve(_ change: ChangeRecord, by token: TokenRecord, message: String?, client: String) throws(ServiceError) -> ChangeRecord {
        guard change.author != token.name else {
            throw Self.refusal(.forbidden, "self_approval", change,
                               "\(token.name) proposed change \(change.id); a second person must approve it")
        }
        guard change.status == .pending else { throw Self.notPending(change) }
        if let expiresAt = change.expiresAtMilliseconds, expiresAt <= ChangeScheduler.wallClock() {
            let expired = try ServiceError.storing { try store.expireChange(id: change.id) }
            if expired.happened { webhooks.submit("request.expired", change: expired.record) }
            throw Self.refusal(.conflict, "request_expired", expired.record,
                               "change \(change.id) expired at \(RFC3339.string(milliseconds: expiresAt)); propose it again")
        }
        let conflicts: [ChangeSet.Item] = try ServiceError.storing { try writer.conflicts(of: change, current: writer.current(change.environment)) }
        if !conflicts.isEmpty {
            let stale = try ServiceError.storing { try store.markChangeStale(id: change.id, conflicts: conflicts) }
            if stale.happened { webhooks.submit("request.stale", change: stale.record) }
            var error = Self.refusal(.conflict, "request_stale", stale.record,
                                     "since change \(change.id) was proposed, \(conflicts.map(\.pointer).joined(separator: ", ")) "
                                        + "changed; propose it again against the current version")
            error.extra["conflicts"] = .array(conflicts.map { .string($0.pointer) })
            throw error
        }
        let transition = try ServiceError.storing {
            try store.approveChange(id: change.id, actor: token.name, message: message, client: client)
        }
        guard transition.happened else { throw Self.notPending(transition.record) }
        return transition.record
    }

    /// The answer to an approval published through the writer: 200 with the change (`applied`) and, when it
    /// made one, the new version as a write answers it; 409 `change_conflicted` or 422 `change_failed` when the
    /// writer found it could not be published (the approval stands; the change says why).
    static func approvalAnswer(_ outcome: WriteOutcome) -> HTTPResponse {
        let record: ChangeRecord
        var version: CommittedVersion?
        switch outcome {
        case .changeRan(let ran, let published):
            (record, version) = (ran, published)
        case .changeSkipped(let skipped):
            record = skipped
        case .failed(let error):
            return error.response
        case .published, .unchanged, .recorded, .notificationStored:
            return ServiceError(.internalServerError, code: "internal", message: "internal error").response
        }
        switch record.status {
        case .conflicted:
            var error = refusal(.conflict, "change_conflicted", record,
                                "approved, but \(record.conflicts.map(\.pointer).joined(separator: ", ")) changed meanwhile: nothing was published")
            error.extra["conflicts"] = .array(record.conflicts.map { .string($0.pointer) })
            return error.response
        case .failed:
            return refusal(.unprocessableContent, "change_failed", record,
                           "approved, but it could not be published: \(record.reason ?? "see the change")").response
        default:
            var body = version.map(WriteAnswer.versionMembers) ?? [:]
            body["change"] = record.jsonValue
            return json(body, headers: version.map { [.eTag: $0.etag] } ?? HTTPHeaders())
        }
    }

    /// Whether a writer job failed (the change it was to publish is still owed).
    static func isFailure(_ outcome: WriteOutcome) -> Bool {
        if case .failed = outcome { return true }
        return false
    }

    /// The change of the `{id}` path parameter, if `token` may see its environment: 400 `invalid_change_id`,
    /// 404 `change_not_found`, 403 `environment_not_allowed` (a scoped token; no token where reads are public).
    func scopedChange(_ context: HTTPRequestContext, _ token: TokenRecord?) throws(ServiceError) -> ChangeRecord {
        guard let text = context.pathParameters["id"], let id = Int64(text), id >= 1 else {
            throw ServiceError.badRequest("invalid_change_id", "a change id is a positive integer")
        }
        let change = try ServiceError.storing { try store.change(id: id) }
        try RouteGuard.requireScope(token, environment: change.environment)
        return change
    }

    /// A refusal that carries the change as it is (`error.change`), so a client sees its status and why.
    static func refusal(_ status: HTTPStatus, _ code: String, _ change: ChangeRecord, _ message: String) -> ServiceError {
        ServiceError(status, code: code, message: message,
                     extra: ["change": change.jsonValue, "status": .string(change.status.rawValue)])
    }

    /// 409 `not_pending` with the change's status.
    static func notPending(_ change: ChangeRecord) -> ServiceError {
        refusal(.conflict, "not_pending", change, "change \(change.id) is \(change.status.rawValue), not pending")
    }

    /// An approval's or rejection's message: the body's `message` (`{"message": "..."}`; an empty body is no
    /// message) or `X-Change-Message`. 400 `message_required` when `required` and there is none.
    static func decisionMessage(_ request: HTTPRequest, required: Bool) throws(ServiceError) -> String? {
        var member: JSONValue?
        if !request.body.isEmpty {
            try requireJSONContentType(request)
            guard case .object(let members) = try parseJSON(request.body) else {
                throw ServiceError.badRequest("invalid_body", #"expected {"message": "..."}"#)
            }
            member = members["message"]
        }
        if !required, member == nil, request.headers[.changeMessage] == nil { return nil }
        return try message(request, body: member)
    }
}
