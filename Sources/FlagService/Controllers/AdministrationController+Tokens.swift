import FlagKit
import FlagStore
import HTTPServer

/// `/v1/tokens`: creating, listing and revoking API tokens over HTTP (`docs/api.md`, "Tokens"), what
/// `flagserver token create|list|revoke` does on the database file, for the console's admins.
///
/// An unscoped admin token only: a token limited to some environments must not mint one for every
/// environment. Every change is a `token.create`/`token.revoke` audit line in the same transaction, with
/// the admin's name and address; refusals are audited by the route layer (`RouteAudit`). Secrets are shown
/// once, in the `201`; the store keeps only their SHA-256.
extension AdministrationController {
    func addTokens(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/tokens", access: .unscoped(.admin),
                        audit: .action("token.create")) { [self] request, context, token, _ in
            try Self.requireJSONContentType(request)
            let wanted = try TokenRequest(try Self.parseJSON(request.body), environments: snapshots.environments)
            let actor = try RouteGuard.required(token).name
            let created: (secret: String, record: TokenRecord)
            do {
                created = try store.createToken(name: wanted.name, role: wanted.role, environments: wanted.environments,
                                                actor: actor, client: routeGuard.clientAddress(request, context))
            } catch {
                throw TokenRequest.refusal(error)
            }
            try? authenticator.reload()   // usable at once on the cached paths too (reads, OFREP, the head check)
            logger.log(.info, "token_created", ["name": created.record.name, "role": created.record.role.rawValue, "by": actor])
            var body = Self.members(created.record)
            // Shown once: only its hash is stored.
            body["secret"] = .string(created.secret)
            return Self.json(body, status: .created, headers: [.location: "/v1/tokens/\(created.record.name)", .cacheControl: "no-store"])
        }

        routes.deferred(.GET, "/v1/tokens", access: .unscoped(.admin)) { [self] request, _, _, _ in
            let includeRevoked = try Self.booleanParameter(request, "includeRevoked")
            let list: [TokenRecord]
            do {
                list = try store.listTokens(includeRevoked: includeRevoked)
            } catch {
                throw ServiceError.store(error)
            }
            return Self.json(["tokens": .array(list.map { .object(Self.members($0)) })], headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.DELETE, "/v1/tokens/{name}", access: .unscoped(.admin),
                        audit: .action("token.revoke")) { [self] request, context, token, _ in
            let name = context.pathParameters["name"] ?? ""
            let actor = try RouteGuard.required(token).name
            // Revoking the token one is using locks that session out mid-action (the console's admin included):
            // another admin token, or `flagserver token revoke` on the host, does it on purpose.
            guard name != actor else {
                throw ServiceError(.conflict, code: "own_token",
                                   message: "this is the token of this request; revoke it with another admin token or flagserver token revoke")
            }
            let record: TokenRecord
            do {
                record = try store.revokeToken(name: name, actor: actor, client: routeGuard.clientAddress(request, context))
            } catch FlagStoreError.tokenNotFound {
                throw ServiceError(.notFound, code: "token_not_found", message: "there is no active token named '\(name)'")
            } catch {
                throw ServiceError.store(error)
            }
            // The in-memory table serves reads with --require-read-token, OFREP and the head check: a revoked token must
            // stop there at once, not at the next periodic reload (this handler runs off the event loop).
            try? authenticator.reload()
            logger.log(.info, "token_revoked", ["name": name, "by": actor])
            return Self.json(Self.members(record), headers: [.cacheControl: "no-store"])
        }
    }

    /// A token's members as the API shows them (never its secret or hash).
    static func members(_ record: TokenRecord) -> [String: JSONValue] {
        [
            "name": .string(record.name), "role": .string(record.role.rawValue),
            "environments": record.environments.map { .array($0.sorted(by: JSONValue.utf8Order).map(JSONValue.string)) } ?? .null,
            "createdAt": .string(RFC3339.string(milliseconds: record.createdAtMilliseconds)),
            "revokedAt": record.revokedAtMilliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null,
            "active": .bool(record.revokedAtMilliseconds == nil),
        ]
    }
}
