import FlagKit
import FlagStore
import HTTPServer

/// `POST`/`GET /v1/environments/{env}/schedules` and `GET /v1/environments/{env}/requests`
/// (`docs/governance.md`, "Scheduled changes" and "A second approver for protected flags").
extension ChangesController {
    func addSchedules(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/environments/{env}/schedules", access: .token(.writer),
                        audit: .action("change.schedule")) { [self] request, context, token, responder in
            let name = try snapshots.requestedEnvironment(context)
            try Self.requireJSONContentType(request)
            let schedule = try ScheduleRequest(body: try Self.parseJSON(request.body), now: ChangeScheduler.wallClock())
            let message = try Self.message(request, body: schedule.message)
            // The writer checks If-Match and makes the change set against the version current in queue order.
            writer.submit(WriteJob(environment: name, kind: .schedule(schedule.edit, applyAt: schedule.applyAt),
                                   precondition: Self.optionalPrecondition(request), author: try RouteGuard.required(token).name,
                                   message: message, client: routeGuard.clientAddress(request, context),
                                   completion: answers.completion(responder, flag: nil)))
            return nil
        }

        routes.deferred(.GET, "/v1/environments/{env}/schedules", access: .reader) { [self] request, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
            let statuses = try Self.statusParameter(request, of: ChangeStatus.self)
            let limit = try Self.integerParameter(request, "limit", default: 100, range: ChangeQuery.limitRange)
            let changes = try ServiceError.storing {
                try store.changes(query: .schedules(environment: name, statuses: statuses, limit: limit))
            }
            return Self.json(["environment": .string(name), "changes": .array(changes.map(\.jsonValue))],
                             headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/environments/{env}/requests", access: .reader) { [self] request, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
            let statuses = try Self.statusParameter(request, of: ChangeStatus.self)
            let limit = try Self.integerParameter(request, "limit", default: 100, range: ChangeQuery.limitRange)
            let before = try Self.optionalIntegerParameter(request, "before", range: 1...Int.max).map(Int64.init)
            let changes = try ServiceError.storing {
                try store.changes(query: .requests(environment: name, statuses: statuses, limit: limit, before: before))
            }
            // The next page: requests older than the last one here (null on the last page).
            let next: JSONValue = changes.count == limit && (changes.last?.id ?? 0) > 1
                ? changes.last.map { .integer($0.id) } ?? .null : .null
            return Self.json(["environment": .string(name), "changes": .array(changes.map(\.jsonValue)), "next": next],
                             headers: [.cacheControl: "no-store"])
        }
    }

}
