import FlagKit
import FlagStore
import HTTPServer
import OutcomeAnalysis

/// The guards' routes (docs/guards.md, "The service"), all for a writer token: `POST`/`GET
/// /v1/environments/{env}/guards`, `GET`/`DELETE /v1/guards/{id}` and the override (`GuardsController+Override`). A
/// guard is addressed by its id, so its environment's scope is checked here once it is read, with THE scope check.
struct GuardsController: RouteController {
    let store: FlagStore
    /// The environments.
    let snapshots: SnapshotStore
    /// The current versions (the head an override republishes on), and the override's publish.
    let writer: WriteQueue
    /// Woken when released schedules may be due.
    let scheduler: ChangeScheduler
    /// Told of every guard event.
    let webhooks: WebhookDispatcher
    /// The client's address for the audit.
    let routeGuard: RouteGuard
    /// Structured logs.
    let logger: ServiceLogger
    /// The guards' clock (whether a version's window is over).
    let clock: @Sendable () -> Int64

    /// Most decisions `GET /v1/guards/{id}` lists.
    static let maximumDecisions = 200

    func addRoutes(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/environments/{env}/guards", access: .token(.writer),
                        audit: .action("guard.add")) { [self] request, context, token, _ in
            let token = try RouteGuard.required(token)
            let environment = try snapshots.requestedEnvironment(context)
            try Self.requireJSONContentType(request)
            let body = try GuardRequest(body: try Self.parseJSON(request.body))
            let new = try newGuard(body, environment: environment, creator: token.name,
                                   client: routeGuard.clientAddress(request, context))
            let created = try ServiceError.storing { try store.createGuard(new) }
            logger.log(.info, "guard_added", ["guard": "\(created.id)", "env": environment, "by": token.name])
            webhooks.submit("guard.added", guard: created)
            return Self.json(["guard": created.jsonValue], status: .created, headers: [.location: "/v1/guards/\(created.id)"])
        }

        routes.deferred(.GET, "/v1/environments/{env}/guards", access: .token(.writer)) { [self] request, context, _, _ in
            let environment = try snapshots.requestedEnvironment(context)
            let statuses = try Self.statusParameter(request, of: GuardStatus.self)
            let guards = try ServiceError.storing { try store.guards(environment: environment, statuses: statuses) }
            return Self.json(["environment": .string(environment), "guards": .array(guards.map(\.jsonValue))],
                             headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/guards/{id}", access: .token(.writer)) { [self] _, context, token, _ in
            let record = try scopedGuard(context, token)
            let decisions = try ServiceError.storing { try store.guardDecisions(id: record.id, limit: Self.maximumDecisions) }
            return Self.json(["guard": record.jsonValue, "decisions": .array(decisions.map(Self.decision))],
                             headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.DELETE, "/v1/guards/{id}", access: .token(.writer),
                        audit: .action("guard.remove")) { [self] request, context, token, _ in
            let token = try RouteGuard.required(token)
            let record = try scopedGuard(context, token)
            let transition = try ServiceError.storing {
                try store.removeGuard(id: record.id, actor: token.name, client: routeGuard.clientAddress(request, context))
            }
            guard transition.happened else {
                throw Self.refusal(.conflict, "not_removable", transition.record,
                                   "guard \(record.id) is \(transition.record.status.rawValue); only waiting or watching guards can be removed")
            }
            scheduler.wake()
            webhooks.submit("guard.removed", guard: transition.record)
            return Self.json(["guard": transition.record.jsonValue])
        }

        addOverride(to: &routes)
    }

    /// The guard to record: on a change (waiting, or watching its applied version), or on a published version whose
    /// window is not over. 404 `change_not_found` / `version_not_found`, 409 `guard_not_applicable`.
    func newGuard(_ body: GuardRequest, environment: String, creator: String, client: String) throws(ServiceError) -> NewGuard {
        var new = NewGuard(environment: environment, product: body.product, appStoreEnvironment: body.appStoreEnvironment.rawValue,
                           rule: body.rule.jsonValue, createdBy: creator, client: client)
        var version = body.version
        if let id = body.change {
            let change = try ServiceError.storing { try store.change(id: id) }
            guard change.environment == environment else { throw ServiceError.store(FlagStoreError.changeNotFound(id: id)) }
            new.changeID = id
            if change.status == .applied {
                version = change.appliedVersion
            } else if change.status.isFinal {
                throw ServiceError(.conflict, code: "guard_not_applicable",
                                   message: "change \(id) is \(change.status.rawValue): it will never be published")
            }
        }
        guard let number = version else { return new }
        let record = try ServiceError.storing { try store.version(environment: environment, number: number) }
        let windowEnd = record.createdAtMilliseconds + Int64(body.rule.windowHours) * GuardRunner.hour
        guard clock() < windowEnd else {
            throw ServiceError(.conflict, code: "guard_not_applicable",
                               message: "version \(number) was published at \(RFC3339.string(milliseconds: record.createdAtMilliseconds)): "
                                   + "its \(body.rule.windowHours)-hour window is over")
        }
        new.version = number
        new.publishedAtMilliseconds = record.createdAtMilliseconds
        return new
    }

    /// The guard of the `{id}` path parameter, if `token` may see its environment: 400 `invalid_guard_id`, 404
    /// `guard_not_found`, 403 `environment_not_allowed`.
    func scopedGuard(_ context: HTTPRequestContext, _ token: TokenRecord?) throws(ServiceError) -> GuardRecord {
        guard let text = context.pathParameters["id"], let id = Int64(text), id >= 1 else {
            throw ServiceError.badRequest("invalid_guard_id", "a guard id is a positive integer")
        }
        let record = try ServiceError.storing { try store.guardRecord(id: id) }
        try RouteGuard.requireScope(token, environment: record.environment)
        return record
    }

    /// One audited decision as `GET /v1/guards/{id}` lists it: the audit action, when, its outcome and its JSON (the
    /// decision's figures; for `guard.acted` the action).
    static func decision(_ entry: AuditEntry) -> JSONValue {
        let detail = (try? JSONParser.parse(Array(entry.detail.utf8)).value) ?? .string(entry.detail)
        return .object(["action": .string(entry.action), "at": .string(RFC3339.string(milliseconds: entry.atMilliseconds)),
                        "outcome": .string(entry.outcome.rawValue), "detail": detail])
    }


    /// A refusal that carries the guard as it is (`error.guard`) and its status.
    static func refusal(_ status: HTTPStatus, _ code: String, _ record: GuardRecord, _ message: String) -> ServiceError {
        ServiceError(status, code: code, message: message, extra: ["guard": record.jsonValue, "status": .string(record.status.rawValue)])
    }
}
