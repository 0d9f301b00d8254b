import FlagKit
import FlagStore
import HTTPServer

/// `/v1/webhooks`: registering, listing and deleting webhooks, and their delivery log (`docs/api.md`, "Webhooks").
///
/// An unscoped admin token only: a webhook may receive events of every environment. Who can register a URL
/// makes the server POST to it, which is why this is an admin's act, audited like a token change (`webhook.create`
/// names the URL), and why a URL whose host is or resolves to an address inside is refused here (422 at `/url`)
/// and again at every delivery (`WebhookDestinationPolicy`).
extension AdministrationController {
    func addWebhooks(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/webhooks", access: .unscoped(.admin),
                        audit: .action("webhook.create")) { [self] request, context, token, _ in
            try Self.requireJSONContentType(request)
            let registration = try WebhookRegistration(try Self.parseJSON(request.body), environments: snapshots.environments)
            try checkDestination(registration.url)
            let secret = registration.secret ?? FlagStore.generateWebhookSecret()
            let record: WebhookRecord
            do {
                record = try store.createWebhook(url: registration.url, secret: secret, events: registration.events,
                                                 environments: registration.environments, actor: try RouteGuard.required(token).name,
                                                 client: routeGuard.clientAddress(request, context))
            } catch {
                throw WebhookRegistration.refusal(error)
            }
            webhooks.reloadReceivers()
            logger.log(.info, "webhook_created", ["id": "\(record.id)", "url": record.url, "by": record.createdBy])
            var body = Self.members(record)
            // Shown once: the store keeps it only to sign with, and no other answer carries it.
            body["secret"] = .string(secret)
            return Self.json(body, status: .created, headers: [.location: "/v1/webhooks/\(record.id)", .cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/webhooks", access: .unscoped(.admin)) { [self] request, _, _, _ in
            let includeDeleted = try Self.booleanParameter(request, "includeDeleted")
            let list: [WebhookRecord]
            do {
                list = try store.webhooks(includeDeleted: includeDeleted)
            } catch {
                throw ServiceError.store(error)
            }
            return Self.json(["webhooks": .array(list.map { .object(Self.members($0)) })], headers: [.cacheControl: "no-store"])
        }

        // A deleted webhook is gone here and from its delivery log route (404, like any deleted resource); the
        // list shows it with `includeDeleted=true`, and its rows stay in the database.
        routes.deferred(.GET, "/v1/webhooks/{id}", access: .unscoped(.admin)) { [self] _, context, _, _ in
            Self.json(Self.members(try activeWebhook(try Self.webhookID(context))), headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.DELETE, "/v1/webhooks/{id}", access: .unscoped(.admin),
                        audit: .action("webhook.delete")) { [self] request, context, token, _ in
            let id = try Self.webhookID(context)
            let record: WebhookRecord
            do {
                record = try store.deleteWebhook(id: id, actor: try RouteGuard.required(token).name,
                                                 client: routeGuard.clientAddress(request, context))
            } catch {
                throw ServiceError.store(error)
            }
            webhooks.reloadReceivers()
            logger.log(.info, "webhook_deleted", ["id": "\(id)", "url": record.url, "by": try RouteGuard.required(token).name])
            return Self.json(Self.members(record), headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/webhooks/{id}/deliveries", access: .unscoped(.admin)) { [self] request, context, _, _ in
            let id = try activeWebhook(try Self.webhookID(context)).id
            let limit = try Self.integerParameter(request, "limit", default: 50, range: 1...1000)
            let before = try Self.optionalIntegerParameter(request, "before", range: 1...Int.max).map(Int64.init)
            let page: [WebhookDeliveryLog]
            do {
                page = try store.webhookDeliveries(webhookID: id, limit: limit, before: before)
            } catch {
                throw ServiceError.store(error)
            }
            let next: JSONValue = page.count == limit ? page.last.map { .integer($0.delivery.id) } ?? .null : .null
            return Self.json(["deliveries": .array(page.map(Self.json)), "next": next], headers: [.cacheControl: "no-store"])
        }
    }

    /// Refuses (`422 invalid_body` at `/url`, with the reason) a URL whose host is or resolves to an address inside.
    /// A name that does not resolve now is accepted: nothing can be sent to it, and every delivery checks again.
    func checkDestination(_ url: String) throws(ServiceError) {
        switch webhooks.options.destinations.decide(url) {
        case .refused(let reason):
            throw WebhookRegistration.invalid([ValidationIssue(path: "/url", message: reason)])
        case .unresolved(let reason):
            logger.log(.info, "webhook_destination_unresolved", ["url": url, "reason": reason])
        case .connect:
            break
        }
    }

    /// Webhook `id`; 404 when there is none or it was deleted.
    func activeWebhook(_ id: Int64) throws(ServiceError) -> WebhookRecord {
        let record: WebhookRecord
        do {
            record = try store.webhook(id: id)
        } catch {
            throw ServiceError.store(error)
        }
        guard record.isActive else {
            throw ServiceError(.notFound, code: "webhook_not_found", message: "webhook \(id) was deleted")
        }
        return record
    }

    /// The `{id}` of a webhook route; a path that is not an id names no webhook (404).
    static func webhookID(_ context: HTTPRequestContext) throws(ServiceError) -> Int64 {
        let text = context.pathParameters["id"] ?? ""
        guard let id = Int64(text), id >= 1 else {
            throw ServiceError(.notFound, code: "webhook_not_found", message: "there is no webhook '\(text)'")
        }
        return id
    }

    /// A webhook's members as the API shows them (never its secret).
    static func members(_ record: WebhookRecord) -> [String: JSONValue] {
        [
            "id": .integer(record.id), "url": .string(record.url), "events": .array(record.events.map(JSONValue.string)),
            "environments": record.environments.map { .array($0.sorted().map(JSONValue.string)) } ?? .null,
            "createdAt": .string(RFC3339.string(milliseconds: record.createdAtMilliseconds)), "createdBy": .string(record.createdBy),
            "deletedAt": record.deletedAtMilliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null,
            "active": .bool(record.isActive),
        ]
    }

    /// A delivery with its attempts, oldest attempt first.
    static func json(_ log: WebhookDeliveryLog) -> JSONValue {
        let delivery = log.delivery
        func time(_ milliseconds: Int64?) -> JSONValue { milliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null }
        return .object([
            "id": .integer(delivery.id), "webhookId": .integer(delivery.webhookID), "eventId": .string(delivery.eventID),
            "type": .string(delivery.eventType), "environment": delivery.environment.map(JSONValue.string) ?? .null,
            "status": .string(delivery.status.rawValue), "nextAttemptAt": time(delivery.nextAttemptAtMilliseconds),
            "createdAt": time(delivery.createdAtMilliseconds), "deliveredAt": time(delivery.deliveredAtMilliseconds),
            "attempts": .array(log.attempts.map { attempt in
                .object(["number": .integer(Int64(attempt.number)), "at": time(attempt.atMilliseconds),
                         "responseStatus": attempt.responseStatus.map { .integer(Int64($0)) } ?? .null,
                         "error": attempt.error.map(JSONValue.string) ?? .null,
                         "durationMs": .integer(Int64(attempt.durationMilliseconds)), "refused": .bool(attempt.refused)])
            }),
        ])
    }
}
