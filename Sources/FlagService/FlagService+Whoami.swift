import FlagKit
import HTTPServer

/// `GET /v1/whoami`: the name, role and environments of the bearer token, so the console can say who is signed
/// in and offer only what the role and scope allow. Checked against the database (like writes), so a revoked token is
/// refused at once rather than after the read-token table's next reload.
extension FlagService {
    func registerWhoami(into routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/whoami", access: .token(.reader)) { [self] _, _, token, _ in
            let token = try RouteGuard.required(token)
            // `environments`: the token's scope, null for every environment (docs/governance.md, "Scoped tokens").
            let scope: JSONValue = token.environments.map { .array($0.sorted().map(JSONValue.string)) } ?? .null
            return Self.json(["name": .string(token.name), "role": .string(token.role.rawValue), "environments": scope,
                              "readsArePublic": .bool(!options.requireReadToken)],
                             headers: [.cacheControl: "no-store", .vary: HTTPHeaderName.authorization.rawValue])
        }
    }
}
